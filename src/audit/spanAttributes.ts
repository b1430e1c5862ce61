import type { ToolCallEvent } from "./events.js";

/**
 * A `tools/call` decision as an OpenTelemetry span, following the GenAI semantic conventions for tool
 * execution where they apply (`gen_ai.operation.name` = `execute_tool`, span name
 * `execute_tool {gen_ai.tool.name}`, `gen_ai.tool.call.id`, `error.type`) and the MCP ones for the
 * request (`mcp.method.name`, `jsonrpc.request.id`); toolgate's decision under `toolgate.*`.
 *
 * Built from a fixed list of the event's fields: nothing derived from the arguments but their digest
 * (`toolgate.args_sha256`), and not the `reason` text either, which can quote an argument (a path
 * outside the allowed scope, say). Fields added to events later stay out of spans until listed here.
 */

export type SpanAttributeValue = string | number | boolean | string[];

/** Serve's events add these; wrap's events do not have them. */
interface ServeFields {
  server?: string | null;
  client?: string;
  via?: string;
}

export interface DecisionSpan {
  name: string;
  attributes: Record<string, SpanAttributeValue>;
  /** Epoch milliseconds of the decision. */
  time: number;
  /** The call was refused (`deny`, or `hidden`: answered as an unknown tool): span status ERROR. */
  refused: boolean;
  /** Status message for a refused call: its reason code. */
  statusMessage?: string;
}

const REFUSED = new Set(["deny", "hidden"]);

/** `defaultServer`: the server to name when the event does not (wrap knows one server). */
export function decisionSpan(event: ToolCallEvent & ServeFields, defaultServer?: string): DecisionSpan {
  const a: Record<string, SpanAttributeValue> = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": event.tool,
    "mcp.method.name": "tools/call",
    "toolgate.decision": event.decision,
    "toolgate.session": event.session,
  };
  if (event.request_id !== null) {
    const id = String(event.request_id);
    a["gen_ai.tool.call.id"] = id;
    a["jsonrpc.request.id"] = id;
  }
  const refused = REFUSED.has(event.decision);
  if (event.code !== null) {
    a["toolgate.code"] = event.code;
    if (refused) a["error.type"] = event.code;
  }
  if (event.rule !== null) {
    a["toolgate.rule.layer"] = event.rule.layer;
    a["toolgate.rule.kind"] = event.rule.kind;
    a["toolgate.rule.value"] = event.rule.value;
  }
  const server = event.server ?? defaultServer;
  if (server !== undefined && server !== null) a["toolgate.server"] = server;
  if (event.client !== undefined) a["toolgate.client"] = event.client;
  if (event.via !== undefined) a["toolgate.via"] = event.via;
  if (event.policy_digest !== null) a["toolgate.policy_digest"] = event.policy_digest;
  if (event.args_sha256 !== null) a["toolgate.args_sha256"] = event.args_sha256;
  if (event.args_canonical === false) a["toolgate.args_canonical"] = false;
  if (event.warnings.length > 0) a["toolgate.warnings"] = [...event.warnings];

  const parsed = Date.parse(event.time);
  const span: DecisionSpan = {
    name: `execute_tool ${event.tool}`,
    attributes: a,
    time: Number.isNaN(parsed) ? Date.now() : parsed,
    refused,
  };
  if (refused) span.statusMessage = event.code ?? event.decision;
  return span;
}
