import { join } from "node:path";
import type { PolicyCatalog } from "../../config/catalogFile.js";
import { loadPolicyText } from "../../config/policyLoader.js";
import type { PolicyTestCase, TestRequest } from "../../config/policyTestFile.js";
import { isJsonObject } from "../../engine/rpc/jsonRpc.js";
import { compilePolicy } from "../../engine/policy/compile.js";
import { evaluateCase } from "../../session/policyCase.js";
import { policyGates } from "../../session/policyTestContext.js";
import type { ListedTool } from "../../session/catalogPages.js";
import { localRealpath } from "../../upstream/localRealpath.js";
import { requiredPathArguments } from "./starterSchema.js";
import type { ServerRoot } from "./serverRoots.js";

/**
 * The starter test file `policy init --output P` writes beside the policy (`P.tests.yaml`): what the model
 * sees, and for each tool the decision of a call, each decided by the engine on the starter policy itself
 * (so the file passes as written and fails when an edit changes one of them). A call whose made-up
 * arguments the policy refuses for their own sake (a schema, a scope) is left out: it would test the
 * example, not the policy.
 */
export interface StarterTestsInput {
  /** The policy as the test file names it (relative to the test file). */
  policyRef: string;
  /** Where the policy will be (for diagnostics) and its text. */
  policyPath: string;
  policyText: string;
  tools: readonly ListedTool[];
  rawSchemas: ReadonlyMap<string, string>;
  roots: readonly ServerRoot[];
}

const SERVER = "server";
const KEPT_DENIALS = new Set(["E_APPROVAL_REQUIRED"]);

/** The YAML text, or `null` when the policy text does not load (then no tests are written). */
export function starterTestsYaml(input: StarterTestsInput): string | null {
  const { policy } = loadPolicyText(input.policyPath, input.policyText);
  if (policy === null) return null;
  const catalog: PolicyCatalog = new Map([[SERVER, { tools: input.tools, rawSchemas: input.rawSchemas }]]);
  const gates = policyGates({ compiled: compilePolicy(policy), shownPath: input.policyPath }, catalog);
  const at = { file: input.policyPath, path: "", line: 0, column: 0 };
  const realpath = localRealpath();
  const decide = (request: TestRequest) => {
    const c: PolicyTestCase = { name: "", at, context: { skills: [] }, request, expect: {} };
    // Scopes with `realpath: true` resolve links on this machine, as `policy test` does.
    const r = evaluateCase(c, gates, catalog, { realpath });
    return r.kind === "decided" ? r.actual : null;
  };
  const lines = [
    "# toolgate policy init: starter tests for the policy beside this file. Each expectation is what the",
    "# starter policy decides; keep the ones that must hold, add your own, run: toolgate policy test FILE --catalog …",
    `policy: ${JSON.stringify(input.policyRef)}`,
    "cases:",
  ];
  const listed = decide({ kind: "list" });
  if (listed !== null) {
    lines.push("  - name: what the model sees", "    list: {}");
    lines.push(`    expect: {visible: ${JSON.stringify(listed.visible ?? [])}}`);
  }
  const sorted = [...input.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const tool of sorted) {
    const args = exampleArguments(tool.inputSchema, input.roots);
    const actual = decide({ kind: "call", tool: tool.name, arguments: args, approval: "none" });
    if (actual === null || actual.decision === undefined) continue;
    if (actual.decision === "deny" && !KEPT_DENIALS.has(actual.code ?? "")) continue;
    const expect: Record<string, unknown> = { decision: actual.decision };
    if (actual.code !== null) expect.code = actual.code;
    lines.push(`  - name: ${JSON.stringify(`${tool.name}: ${describe(actual.decision, actual.code)}`)}`);
    lines.push(`    call: ${JSON.stringify({ tool: tool.name, arguments: args })}`);
    lines.push(`    expect: ${JSON.stringify(expect)}`);
  }
  lines.push(
    "  - name: a tool the server does not have stays hidden",
    '    call: {"tool": "no_such_tool", "arguments": {}}',
    '    expect: {"decision": "hidden"}',
  );
  return lines.join("\n") + "\n";
}

function describe(decision: string, code: string | null): string {
  if (decision === "allow") return "allowed";
  if (code === "E_APPROVAL_REQUIRED") return "waits for a person's approval";
  return decision === "hidden" ? "hidden" : `denied (${code})`;
}

/** The required arguments with a plain value of their type; a path argument inside the first root. */
function exampleArguments(schema: unknown, roots: readonly ServerRoot[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isJsonObject(schema) || !isJsonObject(schema.properties) || !Array.isArray(schema.required))
    return out;
  const paths = new Set(requiredPathArguments(schema));
  for (const name of schema.required) {
    if (typeof name !== "string" || !Object.hasOwn(schema.properties, name)) continue;
    const property = schema.properties[name];
    const type = isJsonObject(property) ? property.type : undefined;
    const path = roots.length > 0 ? join(roots[0]!.path, "example.txt") : "example.txt";
    if (type === "array") out[name] = paths.has(name) ? [path] : [];
    else if (paths.has(name)) out[name] = path;
    else if (type === "number" || type === "integer") out[name] = 1;
    else if (type === "boolean") out[name] = false;
    else if (type === "object") out[name] = {};
    else out[name] = "example";
  }
  return out;
}
