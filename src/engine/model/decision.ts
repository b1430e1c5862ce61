import type { RedactContract } from "./policy.js";
import type { SourceRef } from "./source.js";
import type { ApprovalEvidence, ApprovalKeyring } from "./approval.js";
import type { Principal } from "./principal.js";
import type { ReasonCode } from "./reasonCodes.js";
import type { ItemDecisionCode } from "./codes.js";

/** The rule that decided: a policy entry, a whitelist layer's pattern, a limit, an enforcement setting. */
export interface Rule {
  /** `policy`, or a whitelist layer label such as `global (mcp.json)` / `role (reviewer)`. */
  layer: string;
  /** What kind of rule: `tools.deny`, `tools.allow`, `schemas`, `limits.max_tool_calls_total`, … */
  kind: string;
  /** The pattern, schema name or setting value that decided. */
  value: string;
  at?: SourceRef;
}

export interface Violation {
  /** JSON pointer into the arguments (`""` for the arguments object itself). */
  path: string;
  message: string;
}

/**
 * A control attached to an allowed call. The engine enforces what it can itself (scope, a supplied approval
 * artifact) and says so in `status`; what needs the gateway (asking a person, redacting what it writes)
 * stays for the gateway to do. An obligation without a `status` comes from a caller that predates these
 * fields and must be treated as unmet.
 */
export type Obligation =
  | {
      kind: "approval_required";
      rule: Rule;
      /**
       * `satisfied`: a valid approval artifact was supplied (`approval` says which). `pending`: the gateway
       * must obtain the person's explicit accept (MCP elicitation) before forwarding, or deny with
       * `E_APPROVAL_REQUIRED`.
       */
      status?: "satisfied" | "pending";
      approval?: ApprovalEvidence;
      /** Why a supplied artifact was not accepted (the call is then `pending`), for the audit record. */
      artifactProblem?: string;
      /** Digest of the artifact that was not accepted, when it has one. */
      artifactDigest?: string;
    }
  | {
      kind: "restrict_scope";
      rule: Rule;
      /** `enforced`: every checked argument is inside the scope. */
      status?: "enforced";
      /** JSON pointers of the arguments that were checked (`""` for a tool-name scope). */
      checked?: string[];
    }
  | {
      kind: "redact_args";
      rule: Rule;
      /** What to apply (redactArguments) to everything written about this call. */
      contract?: RedactContract;
    };

export interface Decision {
  decision: "allow" | "deny";
  code: ReasonCode | null;
  /** Codes raised without denying (e.g. `E_TOOL_UNCONSTRAINED` under `warn`). */
  warnings: ReasonCode[];
  tool: string;
  reason: string;
  rule: Rule | null;
  violations: Violation[];
  /** Controls attached to an allowed call; empty on a denial. */
  obligations: Obligation[];
}

/** Counts of what the session did before this call (limits compare against them). */
export interface SessionCounters {
  /** Client requests so far, excluding the handshake and `ping`, excluding this one. */
  requests: number;
  /** `tools/call` requests so far, excluding this one. */
  toolCalls: number;
}

/** What the caller knows about a call beyond its name and arguments. Every field is optional. */
export interface CallContext {
  /** The approval artifact supplied with the call (see controls/approval.ts findApprovalArtifact). */
  approval?: unknown;
  /** Set when the call's artifact cannot approve whatever it says (it is inside the arguments). */
  approvalProblem?: string;
  /** The keys an artifact must be signed with; absent: no artifact approves. */
  approvalKeys?: ApprovalKeyring;
  /** Who makes the call: an artifact bound to a principal (`bound_principal`) approves only its calls. */
  principal?: Principal;
  /** The time to judge an artifact's validity against; default: the current time. */
  now?: Date;
  /**
   * Whether the gateway can ask a person (the client declared MCP elicitation). `false`: an approval the
   * call needs and does not carry is denied here with `E_APPROVAL_REQUIRED`. Absent: the decision leaves a
   * `pending` obligation for the gateway.
   */
  canElicit?: boolean;
  /** The server's inputSchema for the tool (which arguments are paths); default: the policy's schema. */
  inputSchema?: unknown;
  /** Resolves symlinks for `realpath: true` scopes (see controls/scope.ts RealpathHook). */
  realpath?: RealpathHook;
  /** The tool's name through the gateway (`<server>__<tool>`); a tools.deny entry so written denies it. */
  shownAs?: string;
}

/**
 * Resolves symbolic links the way the server's filesystem would (the gateway passes a wrapper around
 * `fs.realpathSync.native` when the server shares toolgate's filesystem). Returns the resolved absolute
 * path, or `null` when the path does not exist (ENOENT/ENOTDIR); anything else should throw. For a path
 * that does not exist yet (a file about to be written) the nearest existing ancestor is resolved and the
 * rest appended, so a symlinked parent directory is still caught.
 */
export type RealpathHook = (path: string) => string | null;

/** What the opt-in `resources:` / `prompts:` sections of a policy decide about (engine/policy/itemRules.ts). */
export type ItemKind = "resource" | "prompt";

/** The decision about one resource URI, URI template or prompt name, with the rule that decided. */
export interface ItemDecision {
  decision: "allow" | "deny";
  code: ItemDecisionCode | null;
  kind: ItemKind;
  /** The URI, URI template or prompt name decided, as the server knows it. */
  name: string;
  reason: string;
  rule: Rule;
}
