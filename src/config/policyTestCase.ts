import type { SourceMap, SourceNode, SourceRef } from "../engine/model/source.js";
import { toPlainExact } from "./sourceTree.js";
import { TestFileReader as Reader } from "./policyTestReader.js";

/** One case of a policy test file (policyTestFile.ts): its context, its request, what must come out. */

export interface TestContext {
  /** A tokens-file entry's name: the case gets that entry's context. */
  token?: string;
  role?: string;
  agent?: string;
  session?: string;
  skills: string[];
  node?: string;
}

/** `none`: no artifact and nobody to ask (refused); `ask`: the client can ask its person (allowed pending). */
export type TestApproval = "none" | "ask";

export type TestRequest =
  | { kind: "call"; server?: string; tool: string; arguments: unknown; approval: TestApproval }
  | { kind: "list"; server?: string };

export type ExpectedDecision = "allow" | "deny" | "hidden";

export interface TestExpectation {
  decision?: ExpectedDecision;
  code?: string;
  /** The rule's pattern or value, its kind, or both (`tools.deny write_*`). */
  rule?: string;
  /** Exactly the tools a `tools/list` shows. */
  visible?: string[];
  /** Exactly these obligation kinds on the call (approval_required, restrict_scope, redact_args). */
  obligations?: string[];
}

export interface PolicyTestCase {
  name: string;
  at: SourceRef;
  context: TestContext;
  request: TestRequest;
  expect: TestExpectation;
}

const CASE = ["name", "context", "call", "list", "expect"];
const CONTEXT = ["token", "role", "agent", "session", "skills", "node"];
const CALL = ["server", "tool", "arguments", "approval"];
const LIST = ["server"];
const EXPECT = ["decision", "code", "rule", "visible", "obligations"];
const DECISIONS: readonly ExpectedDecision[] = ["allow", "deny", "hidden"];
const APPROVALS: readonly TestApproval[] = ["none", "ask"];
const OBLIGATIONS = ["approval_required", "restrict_scope", "redact_args"];

export function parseCase(r: Reader, node: SourceNode): PolicyTestCase | null {
  const before = r.diagnostics.length;
  const map = r.map(node, "a case", CASE);
  if (map === null) return null;
  let name: string | undefined;
  const context: TestContext = { skills: [] };
  let request: TestRequest | undefined;
  let expect: TestExpectation | undefined;
  for (const e of map.entries) {
    switch (e.key) {
      case "name":
        name = r.string(e.value, "name");
        break;
      case "context":
        parseContext(r, e.value, context);
        break;
      case "call":
      case "list":
        if (request !== undefined) {
          r.error(e.keyAt, "a case has either 'call' or 'list', not both", "split it into two cases");
        }
        request = e.key === "call" ? parseCall(r, e.value) : parseList(r, e.value);
        break;
      case "expect":
        expect = parseExpect(r, e.value);
        break;
    }
  }
  if (name === undefined && !map.entries.some((e) => e.key === "name")) {
    r.error(map.at, "the case has no 'name'", "name each case: it is what a failure is reported by");
  }
  if (request === undefined && !map.entries.some((e) => e.key === "call" || e.key === "list")) {
    r.error(map.at, "the case has neither 'call' nor 'list'", "add call: {tool: …} or list: {}");
  }
  if (expect === undefined && !map.entries.some((e) => e.key === "expect")) {
    r.error(map.at, "the case has no 'expect'", "say what must come out, e.g. expect: {decision: deny}");
  }
  const both = map.entries.filter((e) => e.key === "call" || e.key === "list").length > 1;
  if (request !== undefined && expect !== undefined && !both) checkExpectFits(r, map, request, expect);
  if (r.diagnostics.length > before || name === undefined || request === undefined || expect === undefined) {
    return null;
  }
  return { name, at: map.at, context, request, expect };
}

function parseContext(r: Reader, node: SourceNode, context: TestContext): void {
  const map = r.map(node, "'context'", CONTEXT);
  for (const e of map?.entries ?? []) {
    if (e.key === "skills") {
      context.skills = r.strings(e.value, "context.skills") ?? [];
    } else if (CONTEXT.includes(e.key)) {
      const value = r.string(e.value, `context.${e.key}`);
      if (value !== undefined) context[e.key as "token" | "role" | "agent" | "session" | "node"] = value;
    }
  }
  const selected = map?.entries.some((e) => e.key !== "token") ?? false;
  if (context.token !== undefined && selected) {
    r.error(
      node.at,
      "'context' names a token and a context beside it",
      "a token brings its own context: give one or the other",
    );
  }
}

function parseCall(r: Reader, node: SourceNode): TestRequest | undefined {
  const map = r.map(node, "'call'", CALL);
  if (map === null) return undefined;
  let tool: string | undefined;
  let server: string | undefined;
  let args: unknown = undefined;
  let approval: TestApproval = "none";
  for (const e of map.entries) {
    if (e.key === "tool") tool = r.string(e.value, "call.tool");
    else if (e.key === "server") server = r.string(e.value, "call.server");
    else if (e.key === "arguments") args = toPlainExact(e.value);
    else if (e.key === "approval") approval = r.oneOf(e.value, "call.approval", APPROVALS) ?? "none";
  }
  if (tool === undefined) {
    if (!map.entries.some((e) => e.key === "tool"))
      r.error(map.at, "'call' has no 'tool'", "name the tool called");
    return undefined;
  }
  return { kind: "call", tool, arguments: args, approval, ...(server === undefined ? {} : { server }) };
}

function parseList(r: Reader, node: SourceNode): TestRequest | undefined {
  // `list: {}` and a bare `list:` both mean the only server's tools/list.
  if (node.kind === "scalar" && node.value === null) return { kind: "list" };
  const map = r.map(node, "'list'", LIST);
  if (map === null) return undefined;
  const entry = map.entries.find((e) => e.key === "server");
  const server = entry === undefined ? undefined : r.string(entry.value, "list.server");
  return server === undefined ? { kind: "list" } : { kind: "list", server };
}

function parseExpect(r: Reader, node: SourceNode): TestExpectation | undefined {
  const map = r.map(node, "'expect'", EXPECT);
  if (map === null) return undefined;
  const out: TestExpectation = {};
  for (const e of map.entries) {
    if (e.key === "decision") {
      const d = r.oneOf(e.value, "expect.decision", DECISIONS);
      if (d !== undefined) out.decision = d;
    } else if (e.key === "code" || e.key === "rule") {
      const s = r.string(e.value, `expect.${e.key}`);
      if (s !== undefined) out[e.key] = s;
    } else if (e.key === "visible") {
      const names =
        e.value.kind === "seq" && e.value.items.length === 0 ? [] : r.strings(e.value, "expect.visible");
      if (names !== undefined) out.visible = names;
    } else if (e.key === "obligations") {
      const kinds =
        e.value.kind === "seq" && e.value.items.length === 0 ? [] : r.strings(e.value, "expect.obligations");
      for (const [i, k] of (kinds ?? []).entries()) {
        if (!OBLIGATIONS.includes(k)) {
          const item = (e.value as { items: SourceNode[] }).items[i]!;
          r.error(item.at, `'${k}' is not an obligation`, `obligations are ${OBLIGATIONS.join(", ")}`);
        }
      }
      if (kinds !== undefined) out.obligations = kinds;
    }
  }
  if (Object.keys(out).length === 0 && r.diagnostics.length === 0) {
    r.error(map.at, "'expect' says nothing", `give at least one of ${EXPECT.join(", ")}`);
  }
  return out;
}

/** A list case is judged by what it shows, a call by its decision: an expectation of the other kind is a mistake. */
function checkExpectFits(r: Reader, map: SourceMap, request: TestRequest, expect: TestExpectation): void {
  const at = map.entries.find((e) => e.key === "expect")!.value.at;
  if (request.kind === "list") {
    const wrong = (["decision", "code", "rule", "obligations"] as const).filter(
      (k) => expect[k] !== undefined,
    );
    if (wrong.length > 0) {
      r.error(
        at,
        `a 'list' case expects 'visible' only, not ${wrong.join(", ")}`,
        "write a 'call' case for a decision",
      );
    } else if (expect.visible === undefined) {
      r.error(at, "a 'list' case needs expect.visible (exactly the tools shown)");
    }
  } else if (expect.visible !== undefined) {
    r.error(at, "'visible' belongs to a 'list' case", "write expect: {decision: …} for a call");
  }
}
