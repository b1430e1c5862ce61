// The example of docs/policy-files.md "Importing from another tool" is what the command prints: the
// settings file shown, imported, gives exactly the policy shown (stdout) and the report shown (stderr).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importedPolicyYaml, importPolicy } from "../../../src/cli/policy/import/index.js";
import { reportText } from "../../../src/cli/policyImportCommand.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const doc = readFileSync(join(ROOT, "docs/policy-files.md"), "utf8");
const section = doc.slice(doc.indexOf("## Importing from another tool: `toolgate policy import`"));

function block(lang: string): string {
  const match = new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(section);
  expect(match, lang).not.toBeNull();
  return match![1]!;
}

describe("docs: toolgate policy import example", () => {
  it("prints exactly the policy and the report shown", () => {
    const result = importPolicy("claude-code", ".claude/settings.json", block("json"));
    if (!result.ok) throw new Error(result.error.message);
    expect(importedPolicyYaml(result.outcome.policy)).toBe(block("yaml"));
    expect(reportText(".claude/settings.json", result.outcome)).toBe(block("text"));
    expect(result.outcome.report.length).toBeGreaterThan(0); // exit 1, as the text says
  });
});
