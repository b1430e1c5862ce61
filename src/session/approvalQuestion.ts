import { writeJson } from "../engine/json/jsonNumber.js";
import { findTargets, isPlainObject, type ArgumentTarget } from "../engine/controls/argumentTargets.js";
import type { Rule } from "../engine/model/decision.js";
import { isJsonObject, type JsonObject, type JsonRpcResponse } from "../engine/rpc/jsonRpc.js";

/**
 * The question toolgate puts to the person behind the client when a call needs approval (MCP form-mode
 * `elicitation/create`), and how it reads the answer.
 *
 * The form has one required boolean, `approve` (default `false`): only `action: "accept"` with
 * `approve: true` approves, so an accept given without looking (a form submitted as it came) is not an
 * approval. `decline`, `cancel`, an accept without `approve: true`, an error or no answer deny.
 */

export const APPROVE_FIELD = "approve";
/** Longest argument text put in the question; longer arguments are cut (and the question says so). */
export const MAX_SHOWN_ARGUMENTS = 2000;

export interface ApprovalQuestion {
  tool: string;
  /** The server as the operator named it (`--label`, `--server`) or as it named itself. */
  server?: string;
  /** The arguments as they may be shown (redaction applied). */
  shownArguments: unknown;
  rule: Rule;
  /** A supplied artifact that was not accepted, with its problem already scrubbed. */
  rejectedArtifact?: string;
  /** The tool's inputSchema as listed (which arguments are paths or resources). */
  inputSchema?: unknown;
}

/** The params of the `elicitation/create` request. */
export function approvalRequestParams(q: ApprovalQuestion): JsonObject {
  // Every number as the client wrote it: the person approves the ID that will be sent, not its double.
  let args = writeJson(q.shownArguments ?? {}, 2);
  if (args.length > MAX_SHOWN_ARGUMENTS) {
    args = `${args.slice(0, MAX_SHOWN_ARGUMENTS)}\n… (${args.length - MAX_SHOWN_ARGUMENTS} more characters not shown)`;
  }
  const lines = [
    `Approve this tool call? The policy requires a person's approval for it (tools.approval_required '${q.rule.value}').`,
    "",
    `Tool: ${q.tool}`,
    `Server: ${q.server ?? "(unnamed)"}`,
  ];
  // What the call acts on comes first and whole: a long argument before it must not push it out of sight.
  const targets = targetsOf(q.shownArguments, q.inputSchema);
  if (targets.length > 0) {
    lines.push("Acts on (in full):");
    for (const t of targets)
      lines.push(`  ${t.pointer === "" ? "(arguments)" : t.pointer}: ${JSON.stringify(t.value)}`);
  }
  lines.push("Arguments (secret values hidden):", args);
  if (q.rejectedArtifact !== undefined) {
    lines.push("", `An approval artifact came with the call and was not accepted: ${q.rejectedArtifact}`);
  }
  lines.push("", "Tick 'approve' and accept to let this one call run; decline or cancel to block it.");
  return {
    mode: "form",
    message: lines.join("\n"),
    requestedSchema: {
      type: "object",
      properties: {
        [APPROVE_FIELD]: {
          type: "boolean",
          title: "Approve",
          description: `Allow this call of '${q.tool}' to run once`,
          default: false,
        },
      },
      required: [APPROVE_FIELD],
    },
  };
}

/** Every path-like and resource argument, each once, in the order found. */
function targetsOf(shown: unknown, inputSchema: unknown): ArgumentTarget[] {
  if (!isPlainObject(shown)) return [];
  const seen = new Set<string>();
  const out: ArgumentTarget[] = [];
  for (const kind of ["path", "resource"] as const) {
    for (const target of findTargets(shown, kind, undefined, inputSchema)) {
      if (seen.has(target.pointer)) continue;
      seen.add(target.pointer);
      out.push(target);
    }
  }
  return out;
}

export type ApprovalAnswer =
  /** `by`: who approved, when it was not the client's person (the dashboard's signed-in user). */
  | { approved: true; by?: string }
  | { approved: false; outcome: "decline" | "cancel" | "not-approved" | "error"; detail?: string };

/** What became of an approval question: the person's answer, or why there is none. */
export type ApprovalOutcome =
  | ApprovalAnswer
  | { approved: false; outcome: "timeout" | "client-cancelled"; detail?: string }
  | { approved: false; outcome: "error"; detail: string };

export function readApprovalAnswer(response: JsonRpcResponse): ApprovalAnswer {
  if (response.error !== undefined) {
    return {
      approved: false,
      outcome: "error",
      detail: `the client answered error ${response.error.code}: ${response.error.message}`,
    };
  }
  const result = response.result;
  const action = isJsonObject(result) ? result.action : undefined;
  switch (action) {
    case "decline":
    case "cancel":
      return { approved: false, outcome: action };
    case "accept": {
      const content = isJsonObject(result) ? result.content : undefined;
      if (isJsonObject(content) && content[APPROVE_FIELD] === true) return { approved: true };
      return {
        approved: false,
        outcome: "not-approved",
        detail: `the person accepted the form without setting '${APPROVE_FIELD}' to true`,
      };
    }
    default:
      return {
        approved: false,
        outcome: "error",
        detail: "the client's answer has no action of accept, decline or cancel",
      };
  }
}
