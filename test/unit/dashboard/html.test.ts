// Every value reaches the dashboard's pages through one escaping template: markup in a tool name stays text,
// quotes cannot leave an attribute, control characters show as visible escapes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, join, markup, queryString, SafeHtml } from "../../../src/dashboard/html.js";

describe("escapeHtml", () => {
  it("escapes the five HTML specials", () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y'`)).toBe(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;",
    );
  });

  it("shows control characters, line separators and bidi overrides as \\u escapes", () => {
    expect(escapeHtml("red\u001b[31m")).toBe("red\\u001b[31m");
    expect(escapeHtml("a\nb\tc\rd")).toBe("a\\nb\\tc\\rd");
    expect(escapeHtml("rtl\u202eexe.txt")).toBe("rtl\\u202eexe.txt");
    expect(escapeHtml("x\u2028y\u0000z\u007f\u0085")).toBe("x\\u2028y\\u0000z\\u007f\\u0085");
  });

  it("leaves ordinary text, including non-ASCII, as it is", () => {
    expect(escapeHtml("get_issue ✓ Grüße 工具")).toBe("get_issue ✓ Grüße 工具");
  });

  it("never lets a tag, a quote or a control character through, whatever the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const out = escapeHtml(text);
        expect(out).not.toMatch(/[<>"'\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        expect(out.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toContain("&");
      }),
    );
  });
});

describe("markup", () => {
  it("escapes interpolated values in content and attributes", () => {
    const name = `"><img src=x onerror=alert(1)>`;
    expect(markup`<td title="${name}">${name}</td>`.text).toBe(
      `<td title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</td>`,
    );
  });

  it("inserts SafeHtml and lists of it as they are, and nothing for null, undefined and false", () => {
    const inner = markup`<b>${"<i>"}</b>`;
    expect(markup`<p>${inner}${[inner, "<"]}${null}${undefined}${false}</p>`.text).toBe(
      "<p><b>&lt;i&gt;</b><b>&lt;i&gt;</b>&lt;</p>",
    );
    expect(markup`${0}${true}`.text).toBe("0true");
  });

  it("join keeps fragments as markup", () => {
    expect(join([markup`<a>`, new SafeHtml("<b>")], "|").text).toBe("<a>|<b>");
  });
});

describe("queryString", () => {
  it("encodes values and skips empty ones", () => {
    expect(
      queryString([
        ["role", "a b&c"],
        ["agent", undefined],
        ["skill", "x"],
        ["skill", "y"],
        ["node", ""],
      ]),
    ).toBe("?role=a+b%26c&skill=x&skill=y");
    expect(queryString([])).toBe("");
  });
});
