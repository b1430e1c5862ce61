// The views' side of resources: / prompts: (info, the dashboard): each offered item's verdict comes from the
// gate (prompts also by their name through the gateway), lists of a kind without a section are left out,
// and entries that match nothing a server offers are named, conservatively for template expansions.
import { describe, expect, it } from "vitest";
import { loadPolicyText } from "../../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../../src/engine/policy/compile.js";
import {
  itemListViews,
  itemRulesText,
  unmatchedItemDiagnostics,
  unmatchedItemEntries,
  type ItemCatalog,
} from "../../../../src/engine/policy/itemViews.js";
import { createPolicyGate } from "../../../../src/engine/policy/policyGate.js";

function policyOf(body: string) {
  const { policy, diagnostics } = loadPolicyText("p.yaml", `version: "2.0"\n${body}`);
  if (policy === null) throw new Error(JSON.stringify(diagnostics));
  return policy;
}

const CATALOG: ItemCatalog = {
  resources: ["demo://static/b.md", "demo://static/a.md"],
  templates: ["demo://dynamic/{id}", "file:///{+path}"],
  prompts: ["simple", "args"],
};

describe("itemListViews", () => {
  it("judges every offered item through the gate, sorted, and counts what is allowed", () => {
    const policy = policyOf(
      'resources:\n  deny: ["demo://static/a.md", "demo://dynamic/{id}"]\nprompts:\n  deny: ["srv__args"]\n',
    );
    const gate = createPolicyGate(compilePolicy(policy), { serverId: "srv", gatewayName: "srv" });
    const views = itemListViews(gate, CATALOG);
    expect(views.map((v) => [v.list, v.offered, v.allowed, v.rows.length])).toEqual([
      ["resources", true, 1, 2],
      ["templates", true, 1, 2],
      ["prompts", true, 1, 2],
    ]);
    expect(views[0]!.rows.map((r) => [r.name, r.decision.decision, r.decision.code])).toEqual([
      ["demo://static/a.md", "deny", "E_RESOURCE_DENIED"],
      ["demo://static/b.md", "allow", null],
    ]);
    // The prompt is denied by its name through the gateway.
    expect(views[2]!.rows.find((r) => r.name === "args")!.decision.rule.value).toBe("srv__args");
  });

  it("leaves out the kinds the policy has no section for, and says when the server offers none", () => {
    const gate = createPolicyGate(compilePolicy(policyOf('prompts:\n  allow: ["simple"]\n')), {});
    const views = itemListViews(gate, { resources: null, templates: null, prompts: null });
    expect(views).toEqual([{ list: "prompts", offered: false, rows: [], allowed: 0 }]);
  });
});

describe("itemRulesText", () => {
  it("says what each section allows and denies", () => {
    const policy = policyOf('resources:\n  deny: ["a://x"]\nprompts:\n  allow: []\n');
    expect(itemRulesText("resources", policy.resources!)).toBe(
      "allow: (no allowlist: every resource not denied) · deny: a://x",
    );
    expect(itemRulesText("prompts", policy.prompts!)).toBe(
      "allow: (empty: no prompt allowed) · deny: (none)",
    );
  });
});

describe("unmatchedItemEntries", () => {
  it("names entries that match no listed item, template, or URI a template expands to", () => {
    const policy = policyOf(
      [
        "resources:",
        '  allow: ["demo://static/*", "demo://nothing/*"]',
        '  deny: ["demo://dynamic/7", "file:///etc/*", "demo://dynamic/7/x", "other://{id}"]',
        "prompts:",
        '  deny: ["simpl*", "srv__args", "argz"]',
        "",
      ].join("\n"),
    );
    const unmatched = unmatchedItemEntries(policy, "srv", CATALOG);
    expect(unmatched.map((u) => [u.section, u.field, u.pattern])).toEqual([
      ["resources", "allow", "demo://nothing/*"],
      ["resources", "deny", "demo://dynamic/7/x"],
      ["resources", "deny", "other://{id}"],
      ["prompts", "deny", "argz"],
    ]);
    const [first] = unmatchedItemDiagnostics("srv", unmatched);
    expect(first).toMatchObject({ code: "W_ITEM_UNMATCHED", line: 3, path: "resources.allow[1]" });
    expect(first!.message).toContain("matches nothing 'srv' offers");
  });

  it("names a section whose kind the server does not offer once, at its key", () => {
    const policy = policyOf('resources:\n  deny: ["file:///*", "file:///etc/*"]\n');
    const unmatched = unmatchedItemEntries(policy, "fs", { resources: null, templates: null, prompts: [] });
    expect(unmatched.map((u) => [u.field, u.pattern, u.at.line])).toEqual([[null, null, 2]]);
    expect(unmatchedItemDiagnostics("fs", unmatched)[0]!.message).toBe(
      "the resources: section has nothing to filter on 'fs': the server offers no resources or resource templates",
    );
  });
});
