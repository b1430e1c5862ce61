// The documentation holds together: the README stays a landing page, and every relative link in it and
// in docs/ names a file that exists and, with an #anchor, a heading of that file (GitHub's anchor rules).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../..");
const PAGES = [
  "README.md",
  "examples/README.md",
  ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`),
].filter((f) => f.endsWith(".md"));

/** GitHub's heading anchor: lowercase, punctuation dropped (but `-` and `_`), spaces to `-`; repeats get -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const base = m[1]!
      .toLowerCase()
      // Inside `code` a <tag> is text (its punctuation goes below); outside, an HTML tag leaves no text.
      .replace(/`[^`]*`|<[^>]*>/g, (part) => (part.startsWith("`") ? part : ""))
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function linksOf(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe("documentation", () => {
  it("the README is a landing page under 20 KB with the two set-up commands at the top", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(Buffer.byteLength(readme)).toBeLessThan(20 * 1024);
    const top = readme.split("\n").slice(0, 15).join("\n");
    expect(top).toContain("npm run demo");
    expect(top).toContain("npm test");
  });

  it.each(PAGES)("every relative link of %s resolves", (page) => {
    const text = readFileSync(join(ROOT, page), "utf8");
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
      const [path, anchor] = link.split("#") as [string, string | undefined];
      const target = path === "" ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), path);
      if (!existsSync(target)) {
        broken.push(`${link} (no ${relative(ROOT, target)})`);
        continue;
      }
      if (anchor !== undefined && statSync(target).isFile() && target.endsWith(".md")) {
        if (!anchorsOf(readFileSync(target, "utf8")).has(anchor))
          broken.push(`${link} (no heading #${anchor})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
