// Loading and linting the opt-in resources: / prompts: sections: errors name file, line and field; lint
// finds dead allow entries and allow prefixes that admit more than a directory; migration keeps them.
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { lintPolicy } from "../../../src/config/policyLint.js";
import { migratePolicy } from "../../../src/config/policyMigrate.js";

const v2 = (body: string) => `version: "2.0"\n${body}`;
const errors = (text: string) =>
  loadPolicyText("p.yaml", text).diagnostics.filter((d) => d.severity === "error");
function lint(text: string) {
  const { policy, diagnostics } = loadPolicyText("p.yaml", text);
  if (policy === null) throw new Error(JSON.stringify(diagnostics));
  return lintPolicy(policy).map((d) => [d.code, d.path, d.line]);
}

describe("loading", () => {
  it("reads both sections with positions; absent sections stay absent", () => {
    const { policy } = loadPolicyText(
      "p.yaml",
      v2('resources:\n  deny: ["memory://*"]\nprompts:\n  allow: ["simple_prompt"]\n'),
    );
    expect(policy!.resources).toMatchObject({
      allow: null,
      deny: [{ pattern: "memory://*", at: { path: "resources.deny[0]", line: 3 } }],
    });
    expect(policy!.prompts).toMatchObject({ allow: [{ pattern: "simple_prompt" }], deny: [] });
    expect(loadPolicyText("p.yaml", v2("tools: {}\n")).policy!.resources).toBeUndefined();
  });

  it("a resource entry with an inner star is an error at its line and field", () => {
    expect(errors(v2('resources:\n  deny: ["file:///*/secret"]\n'))).toMatchObject([
      { code: "E_POLICY_FIELD_VALUE", file: "p.yaml", line: 3, path: "resources.deny[0]" },
    ]);
  });

  it("a wrong type names the field", () => {
    expect(errors(v2("prompts:\n  allow: simple_prompt\n"))).toMatchObject([
      {
        code: "E_POLICY_FIELD_TYPE",
        line: 3,
        path: "prompts.allow",
        hint: 'write a list: ["simple_prompt"]',
      },
    ]);
    expect(errors(v2("resources: [a]\n"))).toMatchObject([
      { code: "E_POLICY_FIELD_TYPE", path: "resources" },
    ]);
  });

  it("an unknown field in the section is a warning naming it", () => {
    const { diagnostics } = loadPolicyText("p.yaml", v2("prompts:\n  alow: [x]\n"));
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([["W_UNKNOWN_FIELD", "prompts.alow"]]);
  });
});

describe("lint", () => {
  it("an allow prefix not ending in / is warned about", () => {
    expect(
      lint(v2('resources:\n  allow: ["file:///srv/app*", "file:///srv/lib/*", "memory://*"]\n')),
    ).toEqual([["W_RESOURCE_PREFIX", "resources.allow[0]", 3]]);
  });

  it("an allow entry a deny entry covers is dead", () => {
    expect(
      lint(
        v2(
          'resources:\n  allow: ["file:///srv/app/x", "test://r/{id}", "file:///other/*"]\n  deny: ["file:///srv/*", "test://r/{id}"]\n',
        ),
      ),
    ).toEqual([
      ["W_ALLOW_SHADOWED", "resources.allow[0]", 3],
      ["W_ALLOW_SHADOWED", "resources.allow[1]", 3],
    ]);
    expect(lint(v2('prompts:\n  allow: ["simple_*", "other"]\n  deny: ["simple*"]\n'))).toEqual([
      ["W_ALLOW_SHADOWED", "prompts.allow[0]", 3],
    ]);
  });

  it("a prompt pattern with an inner star is a literal star", () => {
    expect(lint(v2('prompts:\n  deny: ["a*b"]\n'))).toEqual([["W_DENY_LITERAL_STAR", "prompts.deny[0]", 3]]);
  });
});

describe("migration", () => {
  it("a v1 file with the sections keeps them in its v2 form", () => {
    const { policy } = loadPolicyText(
      "p.yaml",
      'version: "1.0"\ndeny: [exec]\nresources:\n  allow: []\nprompts:\n  deny: ["x*"]\n',
    );
    const text = migratePolicy(policy!);
    const again = loadPolicyText("p.yaml", text).policy!;
    expect(again.resources).toMatchObject({ allow: [], deny: [] });
    expect(again.prompts!.deny.map((e) => e.pattern)).toEqual(["x*"]);
  });
});

describe("lint: entries no server offers anything for", () => {
  it("names resource entries without a URI scheme, or written as serve shows the resource", () => {
    expect(
      lint(
        v2(
          'resources:\n  deny: ["/etc/*", "notes.md", "toolgate://fs/file:///x", "fil*", "memory://*", "*"]\n',
        ),
      ),
    ).toEqual([
      ["W_RESOURCE_UNMATCHABLE", "resources.deny[0]", 3],
      ["W_RESOURCE_UNMATCHABLE", "resources.deny[1]", 3],
      ["W_RESOURCE_UNMATCHABLE", "resources.deny[2]", 3],
    ]);
  });

  it("names the empty pattern in either section", () => {
    expect(lint(v2('resources:\n  deny: [""]\nprompts:\n  allow: [""]\n'))).toEqual([
      ["W_PATTERN_EMPTY", "resources.deny[0]", 3],
      ["W_PATTERN_EMPTY", "prompts.allow[0]", 5],
    ]);
  });
});
