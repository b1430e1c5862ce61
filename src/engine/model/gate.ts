import type { PatternEntry, RedactContract } from "./policy.js";
import type { CallContext, Decision, ItemDecision, ItemKind, Rule, SessionCounters } from "./decision.js";
import type { ReasonCode } from "./reasonCodes.js";

/** What a server says about one of its tools, as far as decisions care. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema?: unknown;
  /** The server's hints (readOnlyHint, destructiveHint …): read by `policy init`, never trusted by a decision. */
  annotations?: unknown;
}

/**
 * What the caller knows about a tool beyond its definition, for the pin check of the name stage (docs/design.md, two stages
 * item 3). Every field is optional.
 */
export interface ToolContext {
  /**
   * The definition is the server's own listing, so pins are checked against it. Default: `true` when the
   * definition has an `inputSchema` (MCP requires one on every listed tool), `false` for a bare name
   * (`{ name }`), which is judged by name only: a tool without a pin is then withheld under
   * `unpinned_tools: deny`, and a pinned one stays visible until its definition is seen.
   */
  listed?: boolean;
  /** The server as `tool_pins` entries name it (`server_id`); overrides the gate's own. */
  serverId?: string;
  /** The tool's inputSchema as the raw JSON text the server sent (for `exact_schema_hash`); called only when needed. */
  exactSchemaText?: () => string | undefined;
}

/** A request over a limit of the policy. */
export interface LimitRefusal {
  code: "E_RATE_LIMIT";
  reason: string;
  rule: Rule;
}

/** The name stage (docs/design.md, two stages): may the client see this tool? */
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
  visibility(tool: ToolDefinition, context?: ToolContext): NameVerdict;
  /**
   * Call stage for a visible tool. `args` is the parsed `arguments` value, `undefined` when absent, without
   * the approval artifact (that goes in `context.approval`).
   */
  decideCall(tool: string, args: unknown, counters: SessionCounters, context?: CallContext): Decision;
  /** Hex SHA-256 of the active policy, or `null` without a policy file. */
  readonly policyDigest: string | null;
  /**
   * Limits on a request that is not a tool call: the refusal when one more request would exceed
   * `max_requests_total` (with the limit as its rule), `null` when it may go on.
   */
  requestLimit(counters: SessionCounters): LimitRefusal | null;
  /**
   * Whether the policy sets a limit (`max_requests_total`, `max_tool_calls_total`): only then must requests
   * be counted where every replica sees the counts. Absent: assume it does.
   */
  readonly limited?: boolean;
  /**
   * The redaction contract for what is written about calls to `tool` (`tools.redact_args`), `null` when the
   * tool is not listed there. Absent: no tool is.
   */
  redaction?(tool: string): Pick<RedactContract, "redactionMode" | "redactionScope" | "fields"> | null;
  /**
   * Warnings about this catalog that are not about one tool's visibility: pins whose tool the server no
   * longer lists (renamed or removed). One line each, no newline.
   */
  catalogWarnings?(toolNames: readonly string[], serverId?: string): string[];
  /**
   * The tools.deny entries that match none of `toolNames` (under the tool's own name or its name through the
   * gateway). Across every server of a session, an entry none matches is a likely typo (W_DENY_UNMATCHED).
   */
  unmatchedDeny?(toolNames: readonly string[]): readonly PatternEntry[];
  /**
   * The policy's decision about a resource (URI or template, the server's own) or a prompt (the server's
   * own name; `shownAs`: its name through the gateway). `null` when the policy has no section for that kind
   * (opt-in: nothing is filtered). Whitelist layers never take part: they filter tools only. Absent: `null`.
   */
  itemAccess?(kind: ItemKind, name: string, shownAs?: string): ItemDecision | null;
}
