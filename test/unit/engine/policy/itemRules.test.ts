// The opt-in resources: and prompts: sections, from policy text to decision: forms, deny beating allow,
// template expansion, the rule that decided, and what a policy without the section decides (nothing).
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../../src/engine/policy/compile.js";
import { decideItem, undecidedItem } from "../../../../src/engine/policy/itemRules.js";
import {
  compileResourcePattern,
  resourcePatternProblem,
  templateRegex,
} from "../../../../src/engine/patterns/resourcePattern.js";

function compiled(body: string) {
  const { policy, diagnostics } = loadPolicyText("p.yaml", `version: "2.0"\n${body}`);
  if (policy === null) throw new Error(JSON.stringify(diagnostics));
  return compilePolicy(policy);
}

describe("resource patterns", () => {
  it.each([
    ["file:///srv/app/*", "file:///srv/app/a/b.txt", true],
    ["file:///srv/app/*", "file:///srv/application", false],
    ["file:///srv/app*", "file:///srv/application", true],
    ["memory://*", "memory://notes", true],
    ["memory://*", "memorys://notes", false],
    ["*", "anything:at-all", true],
    ["test://static/resource/1", "test://static/resource/1", true],
    ["test://static/resource/1", "test://static/resource/10", false],
    ["test://static/resource/{id}", "test://static/resource/7", true],
    ["test://static/resource/{id}", "test://static/resource/{id}", true],
    ["test://static/resource/{id}", "test://static/resource/", false],
    ["test://static/resource/{id}", "test://static/resource/7/x", false],
    ["users://{user}/profile", "users://ann/profile", true],
    ["users://{user}/profile", "users://ann/profile.json", false],
    ["files://{+path}", "files://a/b/c", true],
    ["a.b://{x}", "aXb://1", false],
  ])("%s matches %s: %s", (pattern, uri, expected) => {
    expect(compileResourcePattern(pattern).matches(uri)).toBe(expected);
  });

  it("classifies the forms", () => {
    expect(["*", "memory://*", "x://{a}", "x://a"].map((p) => compileResourcePattern(p).form)).toEqual([
      "all",
      "prefix",
      "template",
      "exact",
    ]);
    expect(templateRegex("plain://uri")).toBeNull();
  });

  it("a star that is not last is a problem; a last or only star is not", () => {
    expect(resourcePatternProblem("file:///*/secret")).toContain("not its last character");
    expect(resourcePatternProblem("file:///srv/*")).toBeNull();
    expect(resourcePatternProblem("**")).toBeNull();
  });
});

describe("resource decisions", () => {
  const c = compiled(
    [
      "resources:",
      '  allow: ["file:///srv/app/*", "test://static/resource/{id}"]',
      '  deny: ["file:///srv/app/.env", "test://static/resource/{id}/secret", "memory://*"]',
      "",
    ].join("\n"),
  );

  it("deny beats allow, with the entry that decided and its line", () => {
    const d = decideItem(c.resources!, "file:///srv/app/.env");
    expect(d).toMatchObject({
      decision: "deny",
      code: "E_RESOURCE_DENIED",
      kind: "resource",
      rule: { layer: "policy", kind: "resources.deny", value: "file:///srv/app/.env", at: { line: 4 } },
    });
    expect(d.reason).toBe(
      "resource 'file:///srv/app/.env' is denied by resources.deny entry 'file:///srv/app/.env'",
    );
  });

  it("an allow entry admits by prefix and by template expansion", () => {
    expect(decideItem(c.resources!, "file:///srv/app/x.txt")).toMatchObject({
      decision: "allow",
      code: null,
      rule: { kind: "resources.allow", value: "file:///srv/app/*" },
    });
    expect(decideItem(c.resources!, "test://static/resource/3")).toMatchObject({
      decision: "allow",
      rule: { value: "test://static/resource/{id}" },
    });
  });

  it("an exact template in deny denies the URIs it expands to", () => {
    expect(decideItem(c.resources!, "test://static/resource/3/secret")).toMatchObject({
      decision: "deny",
      code: "E_RESOURCE_DENIED",
      rule: { value: "test://static/resource/{id}/secret" },
    });
  });

  it("with an allowlist, anything unmatched is not allowed", () => {
    expect(decideItem(c.resources!, "file:///srv/application/x")).toMatchObject({
      decision: "deny",
      code: "E_RESOURCE_NOT_ALLOWED",
      rule: { kind: "resources.allow", value: "(no entry matches)" },
    });
  });

  it("the scheme form denies a whole scheme", () => {
    expect(decideItem(c.resources!, "memory://notes")).toMatchObject({ code: "E_RESOURCE_DENIED" });
  });

  it("without allow, everything not denied is allowed; allow: [] allows nothing", () => {
    const open = compiled('resources:\n  deny: ["secret://*"]\n').resources!;
    expect(decideItem(open, "file:///x").decision).toBe("allow");
    expect(decideItem(open, "secret://x").decision).toBe("deny");
    const closed = compiled("resources:\n  allow: []\n").resources!;
    expect(decideItem(closed, "file:///x")).toMatchObject({ code: "E_RESOURCE_NOT_ALLOWED" });
    expect(decideItem(closed, "file:///x").reason).toContain("resources.allow is empty");
  });
});

describe("prompt decisions use the five tool-name forms", () => {
  const c = compiled(
    'prompts:\n  allow: ["simple_*", "*_prompt"]\n  deny: ["*complex*", "resource_prompt"]\n',
  );

  it.each([
    ["simple_prompt", "allow", null],
    ["args_prompt", "allow", null],
    ["complex_prompt", "deny", "E_PROMPT_DENIED"],
    ["resource_prompt", "deny", "E_PROMPT_DENIED"],
    ["other", "deny", "E_PROMPT_NOT_ALLOWED"],
  ])("%s: %s", (name, decision, code) => {
    expect(decideItem(c.prompts!, name)).toMatchObject({ decision, code, kind: "prompt" });
  });

  it("a deny entry written as the name through the gateway denies too", () => {
    const d = compiled('prompts:\n  deny: ["everything__simple_prompt"]\n').prompts!;
    expect(decideItem(d, "simple_prompt").decision).toBe("allow");
    expect(decideItem(d, "simple_prompt", "everything__simple_prompt")).toMatchObject({
      decision: "deny",
      code: "E_PROMPT_DENIED",
    });
  });
});

describe("opt-in", () => {
  it("a policy without the sections compiles to no rules, and policy check says so", () => {
    const c = compiled('tools:\n  deny: ["*"]\n');
    expect(c.resources).toBeNull();
    expect(c.prompts).toBeNull();
    expect(undecidedItem("resource", "file:///x")).toMatchObject({
      decision: "allow",
      code: null,
      rule: { layer: "policy", kind: "resources" },
    });
  });
});
