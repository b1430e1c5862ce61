// Every code toolgate prints or records is in the one registry (engine/model/codes.ts) and has its entry in
// docs/codes.md, with its meaning and fix; the docs document no code the program does not have.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_CODES } from "../../../../src/engine/model/codes.js";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "../../../..");
const CODE = /\b[EWI]_[A-Z][A-Z0-9_]+\b/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : [];
  });
}

describe("the code registry", () => {
  it("has every code the source uses, once", () => {
    const used = new Set(
      sources(join(ROOT, "src")).flatMap((f) => readFileSync(f, "utf8").match(CODE) ?? []),
    );
    const registered = new Set<string>(ALL_CODES);
    expect([...used].filter((c) => !registered.has(c)).sort()).toEqual([]);
    expect(ALL_CODES.length).toBe(registered.size);
  });

  it("registers no code the source never uses", () => {
    const text = sources(join(ROOT, "src"))
      .filter((f) => !f.endsWith("codes.ts") && !f.endsWith("reasonCodes.ts"))
      .map((f) => readFileSync(f, "utf8"))
      .join("\n");
    expect(ALL_CODES.filter((c) => !new RegExp(`\\b${c}\\b`).test(text))).toEqual([]);
  });

  it("docs/codes.md has a section for each code with its meaning and fix, and no other", () => {
    const doc = readFileSync(join(ROOT, "docs/codes.md"), "utf8");
    const sections = doc.split(/^### /m).slice(1);
    const documented = new Map(sections.map((s) => [s.slice(0, s.indexOf("\n")).trim(), s]));
    expect(ALL_CODES.filter((c) => !documented.has(c))).toEqual([]);
    expect([...documented.keys()].filter((c) => !(ALL_CODES as readonly string[]).includes(c))).toEqual([]);
    for (const [code, body] of documented) {
      expect({ code, meaning: /\*\*Meaning\*\*/.test(body), fix: /\*\*Fix\*\*/.test(body) }).toEqual({
        code,
        meaning: true,
        fix: true,
      });
    }
  });
});
