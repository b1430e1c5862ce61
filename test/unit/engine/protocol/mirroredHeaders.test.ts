// The mirrored headers of the 2026-07-28 era (MCP Streamable HTTP, "Request Metadata"): the body decides,
// and a header that disagrees, is repeated, or speaks for an argument the body does not carry is refused
// as HeaderMismatch (-32020).
import { describe, expect, it } from "vitest";
import {
  isMirroredHeader,
  paramHeaderMismatch,
  standardHeaderMismatch,
  withRepeatedLines,
  type HeaderBag,
} from "../../../../src/engine/protocol/mirroredHeaders.js";

const VERSION = "2026-07-28";
const standard = (extra: HeaderBag = {}): HeaderBag => ({
  "mcp-protocol-version": VERSION,
  "mcp-method": "tools/call",
  "mcp-name": "echo",
  ...extra,
});
const callParams = { name: "echo", arguments: {} };

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    count: { type: "integer", "x-mcp-header": "Count" },
    flag: { type: "boolean", "x-mcp-header": "Flag" },
    nested: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
    text: { type: "string" },
  },
};

describe("standardHeaderMismatch", () => {
  it("accepts headers that agree with the body", () => {
    expect(standardHeaderMismatch(standard(), "tools/call", callParams, VERSION)).toBeNull();
  });

  it.each(["mcp-protocol-version", "mcp-method", "mcp-name"])("refuses %s given on two lines", (name) => {
    const headers = standard();
    headers[name] = [String(headers[name]), String(headers[name])];
    const error = standardHeaderMismatch(headers, "tools/call", callParams, VERSION);
    expect(error?.code).toBe(-32020);
    expect(error?.message).toContain("more than one line");
  });

  it("refuses any Mcp-Param-* given on two lines, declared by the tool or not", () => {
    const error = standardHeaderMismatch(
      standard({ "mcp-param-anything": ["a", "b"] }),
      "tools/call",
      callParams,
      VERSION,
    );
    expect(error?.code).toBe(-32020);
    expect(error?.message).toContain("Mcp-Param-Anything");
    expect(error?.data).toEqual({
      mismatch: { header: "Mcp-Param-Anything", headerValue: ["a", "b"], body: null },
    });
  });

  it("accepts one line that holds a comma (node's join of two lines is told apart by withRepeatedLines)", () => {
    const params = { name: "a, b", arguments: {} };
    expect(
      standardHeaderMismatch(standard({ "mcp-name": "a, b" }), "tools/call", params, VERSION),
    ).toBeNull();
  });

  it("refuses a plain value with characters a header may not carry plainly, accepts the base64 form", () => {
    const params = { name: "café", arguments: {} };
    const latin1 = standardHeaderMismatch(standard({ "mcp-name": "café" }), "tools/call", params, VERSION);
    expect(latin1?.message).toContain("characters a plain header value may not");
    const encoded = `=?base64?${Buffer.from("café").toString("base64")}?=`;
    expect(
      standardHeaderMismatch(standard({ "mcp-name": encoded }), "tools/call", params, VERSION),
    ).toBeNull();
  });
});

describe("paramHeaderMismatch", () => {
  it("accepts mirrored arguments that agree, and no header for an absent or null argument", () => {
    const headers = { "mcp-param-region": "eu", "mcp-param-count": "42", "mcp-param-flag": "true" };
    expect(paramHeaderMismatch(headers, schema, { region: "eu", count: 42, flag: true })).toBeNull();
    expect(paramHeaderMismatch({}, schema, { text: "t" })).toBeNull();
    expect(paramHeaderMismatch({}, schema, { region: null, nested: { zone: null } })).toBeNull();
  });

  it("compares integers as numbers", () => {
    expect(paramHeaderMismatch({ "mcp-param-count": "42.0" }, schema, { count: 42 })).toBeNull();
    expect(paramHeaderMismatch({ "mcp-param-count": "43" }, schema, { count: 42 })?.code).toBe(-32020);
  });

  it.each([
    ["absent", {}],
    ["null", { region: null }],
  ])("refuses a declared header sent while its argument is %s", (_, args) => {
    const error = paramHeaderMismatch({ "mcp-param-region": "eu" }, schema, args);
    expect(error?.code).toBe(-32020);
    expect(error?.message).toContain("Mcp-Param-Region");
    expect(error?.message).toContain("absent or null");
    expect(error?.data).toEqual({ mismatch: { header: "Mcp-Param-Region", headerValue: "eu", body: null } });
  });

  it("refuses a nested declared header whose object is absent", () => {
    expect(paramHeaderMismatch({ "mcp-param-zone": "z1" }, schema, { region: "eu" })).toMatchObject({
      code: -32020,
    });
    expect(
      paramHeaderMismatch({ "mcp-param-region": "eu", "mcp-param-zone": "z1" }, schema, {
        region: "eu",
        nested: {},
      }),
    ).toMatchObject({ code: -32020 });
  });

  it("refuses a declared header that is missing, differs, or is repeated", () => {
    expect(paramHeaderMismatch({}, schema, { region: "eu" })?.message).toContain("it is absent");
    expect(paramHeaderMismatch({ "mcp-param-region": "us" }, schema, { region: "eu" })?.message).toContain(
      "differs",
    );
    expect(
      paramHeaderMismatch({ "mcp-param-region": ["eu", "eu"] }, schema, { region: "eu" })?.message,
    ).toContain("more than one line");
  });

  it("ignores Mcp-Param-* headers the tool does not declare", () => {
    expect(paramHeaderMismatch({ "mcp-param-other": "x" }, schema, { text: "t" })).toBeNull();
  });
});

describe("withRepeatedLines", () => {
  it("gives a mirrored header that came on two lines as its lines, leaves the rest as node joined them", () => {
    const joined = {
      "mcp-name": "a, b",
      "mcp-param-region": "eu",
      accept: "x, y",
      "mcp-method": "tools/call",
    };
    const out = withRepeatedLines(joined, {
      "mcp-name": ["a", "b"],
      "mcp-param-region": ["eu"],
      accept: ["x", "y"],
      "mcp-method": ["tools/call"],
    });
    expect(out).toEqual({
      "mcp-name": ["a", "b"],
      "mcp-param-region": "eu",
      accept: "x, y",
      "mcp-method": "tools/call",
    });
    expect(joined["mcp-name"]).toBe("a, b");
  });

  it("knows which headers mirror the body", () => {
    expect(["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-param-x"].every(isMirroredHeader)).toBe(
      true,
    );
    expect(["mcp-session-id", "authorization", "mcp-parameter"].some(isMirroredHeader)).toBe(false);
  });
});
