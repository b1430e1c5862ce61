import fc from "fast-check";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { decisionView, migratePolicy, needsMigration } from "../../../src/config/policyMigrate.js";
import type { Policy } from "../../../src/engine/model/policy.js";
import { corpusCases } from "./corpusFiles.js";

function loaded(text: string, file = "p.yaml"): Policy {
  const { policy, diagnostics } = loadPolicyText(file, text);
  if (policy === null) throw new Error(`does not load: ${JSON.stringify(diagnostics)}`);
  return policy;
}

describe("migratePolicy over the corpus", () => {
  const loadable = corpusCases().filter((c) => c.expect.loads);

  it.each(loadable.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const original = loaded(c.text, c.file);
    const text = migratePolicy(original, c.text);
    expect(text.startsWith('version: "2.0"\n') || /^(#.*\n)+\n?version: "2.0"\n/.test(text)).toBe(true);

    const again = loadPolicyText(c.file, text);
    expect(again.policy).not.toBeNull();
    const migrated = again.policy!;
    expect(migrated.sourceVersion).toBe("2.0");
    expect(again.diagnostics.filter((d) => d.code.startsWith("W_DEPRECATED"))).toEqual([]);
    expect(again.diagnostics.filter((d) => d.code === "W_UNKNOWN_FIELD")).toEqual([]);
    expect(needsMigration(migrated)).toBe(false);
    expect(migrated.legacy).toBeUndefined();
    expect(Object.values(migrated.schemas).some((s) => s.fromV1Constraints)).toBe(false);

    // Same normalized allow/deny/obligations/contracts/schemas/enforcement/limits/pins.
    expect(decisionView(migrated)).toEqual(decisionView(original));
    // Deterministic, and a fixed point.
    expect(migratePolicy(original, c.text)).toBe(text);
    expect(migratePolicy(migrated, text)).toBe(text);
  });
});

describe("needsMigration", () => {
  it.each([
    ["spec-v1.yaml", true],
    ["v1-map-form.yaml", true],
    ["v2-root-lists.yaml", true],
    ["spec-minimal-v2.yaml", false],
    ["spec-obligations.yaml", false],
  ])("%s → %s", (name, expected) => {
    const c = corpusCases().find((x) => x.name === name)!;
    expect(needsMigration(loaded(c.text))).toBe(expected);
  });

  it("is true for a v1 file without v1 constructs", () => {
    expect(needsMigration(loaded('version: "1.0"\ntools:\n  deny: [exec]\n'))).toBe(true);
  });
});

describe("migrated text", () => {
  it("writes the spec's v1 example as v2", () => {
    const text =
      'version: "1.0"\ndeny: ["exec"]\nconstraints:\n  - tool: "read_file"\n    params:\n      path:\n        matches: "^/workspace/.*"\n';
    expect(migratePolicy(loaded(text))).toBe(
      [
        'version: "2.0"',
        "tools:",
        '  deny: ["exec"]',
        "schemas:",
        "  read_file:",
        "    type: object",
        "    additionalProperties: true",
        "    properties:",
        "      path:",
        "        type: string",
        "        pattern: ^/workspace/.*",
        "        minLength: 1",
        "    required:",
        "      - path",
        "enforcement:",
        "  unconstrained_tools: warn",
        "",
      ].join("\n"),
    );
  });

  it("keeps the name, the header comment and an explicit empty allowlist", () => {
    const text =
      '# owned by platform-security\n# reviewed 2025-01\n\nversion: "1.0"\nname: "legacy: one"\nallow: []\n';
    const out = migratePolicy(loaded(text), text);
    expect(out.split("\n").slice(0, 6)).toEqual([
      "# owned by platform-security",
      "# reviewed 2025-01",
      "",
      'version: "2.0"',
      'name: "legacy: one"',
      "tools:",
    ]);
    expect(loaded(out).tools.allow).toEqual([]);
    expect(loaded(out).name).toBe("legacy: one");
  });

  it("writes the toolgate-only enforcement settings only when they differ from the defaults", () => {
    const base = 'version: "2.0"\nenforcement:\n  unconstrained_tools: deny\n';
    expect(migratePolicy(loaded(base))).toContain("enforcement:\n  unconstrained_tools: deny\n");
    expect(migratePolicy(loaded(base))).not.toContain("denied_tools");
    expect(migratePolicy(loaded(`${base}  denied_tools: explain\n`))).toContain("  denied_tools: explain\n");
  });

  it("keeps pattern and tool names that need quoting, and __proto__ as a schema key", () => {
    const text = [
      'version: "1.0"',
      "allow: ['*', 'a: b', '#x', '@y', '- z', 'true', '1.0', 'null', '', \"it's\", '\"q\"', 'ü*']",
      "constraints:",
      "  '__proto__': {p: '^a'}",
      "  'tool: one': {p: '^b'}",
      "",
    ].join("\n");
    const original = loaded(text);
    const migrated = loaded(migratePolicy(original));
    expect(decisionView(migrated)).toEqual(decisionView(original));
    expect(migrated.tools.allow!.map((e) => e.pattern)).toEqual([
      "*",
      "a: b",
      "#x",
      "@y",
      "- z",
      "true",
      "1.0",
      "null",
      "",
      "it's",
      '"q"',
      "ü*",
    ]);
  });

  it("round-trips arbitrary pattern lists and constraint names (property)", () => {
    const name = fc.string({ maxLength: 12, unit: "grapheme" });
    fc.assert(
      fc.property(
        fc.option(fc.array(name, { maxLength: 5 }), { nil: undefined }),
        fc.array(name, { maxLength: 5 }),
        fc.array(name, { maxLength: 5 }),
        fc.uniqueArray(name, { maxLength: 3 }),
        (rootAllow, rootDeny, toolsDeny, constrained) => {
          const doc: Record<string, unknown> = { version: "1.0", deny: rootDeny, tools: { deny: toolsDeny } };
          if (rootAllow !== undefined) doc.allow = rootAllow;
          if (constrained.length > 0) {
            const constraints: Record<string, unknown> = {};
            for (const t of constrained)
              Object.defineProperty(constraints, t, { value: { p: "^x" }, enumerable: true });
            doc.constraints = constraints;
          }
          const original = loaded(stringify(doc));
          const migrated = loaded(migratePolicy(original));
          expect(decisionView(migrated)).toEqual(decisionView(original));
          expect(needsMigration(migrated)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("numbers in migrated schemas", () => {
  it("keeps every literal a double would change as written, and the result decides as the original", () => {
    const text =
      'version: "1.0"\ndeny: ["exec"]\nschemas:\n  t:\n    type: object\n    properties:\n      n: { maximum: 9007199254740993, minimum: 1.0, enum: [1e400, 0x1F, 5] }\n';
    const loaded = loadPolicyText("p.yaml", text);
    const migrated = migratePolicy(loaded.policy!);
    expect(migrated).toContain("maximum: 9007199254740993");
    expect(migrated).toContain("minimum: 1.0");
    expect(migrated).toContain("- 1e400");
    // YAML's hexadecimal form is the integer it stands for.
    expect(migrated).toContain("- 31");
    expect(decisionView(loadPolicyText("p.yaml", migrated).policy!)).toBeDefined();
  });
});
