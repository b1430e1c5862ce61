import type { Decision, Rule, SessionCounters } from "./decision.js";
import type { ReasonCode } from "./reasonCodes.js";

/** What a server says about one of its tools, as far as decisions care. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

/** The name stage (DESIGN §2): may the client see this tool? */
export interface NameVerdict {
  visible: boolean;
  /**
   * For a tool that is not visible: answer calls to it with the structured deny (`true`,
   * `enforcement.denied_tools: explain`) instead of the server's unknown-tool answer (`false`).
   */
  explain: boolean;
  /** Why it is not visible; `null` when visible. */
  code: ReasonCode | null;
  /** The rule or layer pattern that hid it (or, for a visible tool, the last one that admitted it). */
  rule: Rule | null;
  reason: string;
}

/**
 * One client's decision function: the same object answers listing and calling, so the two cannot
 * disagree. Pure and synchronous; the gateway keeps the counters and the catalog.
 */
export interface ToolGate {
  /** Name stage for a tool the server listed (definition known) or a bare name a client called. */
  visibility(tool: ToolDefinition): NameVerdict;
  /** Call stage for a visible tool. `args` is the parsed `arguments` value, `undefined` when absent. */
  decideCall(tool: string, args: unknown, counters: SessionCounters): Decision;
  /** Hex SHA-256 of the active policy, or `null` without a policy file. */
  readonly policyDigest: string | null;
  /** Limits on non-call requests: `true` when one more request would exceed `max_requests_total`. */
  requestLimitReached(counters: SessionCounters): boolean;
}
