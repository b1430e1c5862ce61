import { IN_ARGUMENTS_PROBLEM, type ApprovalLookup } from "../engine/controls/approval.js";
import type { ApprovalEvidence, ApprovalKeyring } from "../engine/model/approval.js";
import type { Principal } from "../engine/model/principal.js";
import type {
  CallContext,
  RealpathHook,
  Rule,
  SessionCounters,
  Violation,
} from "../engine/model/decision.js";
import type { ToolContext, ToolGate } from "../engine/model/gate.js";
import type { ListedTool } from "./catalogPages.js";
import type { GatewayCode } from "./codes.js";
import { planObligations, type RejectedArtifact } from "./obligations.js";
import type { CatalogState } from "./toolCatalog.js";

/** What one call comes to, before anything is recorded or answered. */
export type CallVerdict =
  | {
      kind: "allow";
      reason: string;
      rule: Rule | null;
      warnings: string[];
      /** The approval artifact that satisfied `approval_required`, with that rule. */
      approval?: ApprovalEvidence & { rule: Rule };
      /** The call needs the person's explicit accept before it is forwarded. */
      ask?: { rule: Rule; rejected?: RejectedArtifact };
    }
  | {
      kind: "deny";
      code: GatewayCode;
      reason: string;
      rule: Rule | null;
      violations: readonly Violation[];
      by: "policy" | "toolgate";
      /** The tool is visible, so the client has its definition (and may validate against its outputSchema). */
      shownToClient: boolean;
      /** A supplied approval artifact that was not accepted. */
      rejected?: RejectedArtifact;
    }
  /** Not visible: answered as the server answers a tool it does not have. */
  | { kind: "hidden"; code: GatewayCode | null; reason: string; rule: Rule | null };

export interface VerdictInput {
  gate: ToolGate;
  tool: string;
  /** `arguments` as they would be forwarded (the approval artifact stripped), `undefined` when absent. */
  args: unknown;
  lookup: ApprovalLookup;
  catalog: CatalogState;
  /** What the pin stage needs besides the definition: the server's id and the schema's raw text. */
  toolContext: ToolContext;
  counters: SessionCounters;
  /** The client was shown this tool before (a tool withheld for drift is then explained, not hidden). */
  shownBefore: boolean;
  /** `null` when the person behind the client can be asked; else why not (ends the refusal's reason). */
  cannotAsk: string | null;
  realpath?: RealpathHook;
  /** The keys an approval artifact must be signed with. */
  approvalKeys?: ApprovalKeyring;
  /** Who makes the call (an artifact bound to a principal approves only its calls). */
  principal?: Principal;
}

/**
 * The whole decision for one call, synchronous and pure: the catalog to decide with, the name stage (is the
 * tool visible?), the call stage (limits, schema, unconstrained tools, scope, approval artifact), and what
 * the obligations still need (forward, ask the person, refuse).
 */
export function callVerdict(input: VerdictInput): CallVerdict {
  const { gate, tool, catalog } = input;
  if (!catalog.ok) {
    return {
      kind: "deny",
      code: catalog.code ?? "E_CATALOG_UNAVAILABLE",
      reason: catalog.reason,
      rule: null,
      violations: [],
      by: "toolgate",
      shownToClient: false,
    };
  }
  const definition = catalog.snapshot.tools.get(tool);
  if (definition === undefined) {
    return {
      kind: "hidden",
      code: null,
      reason: `tool '${tool}' is not in the server's catalog`,
      rule: null,
    };
  }
  const visibility = gate.visibility(definition, input.toolContext);
  if (!visibility.visible) {
    // A tool withheld for drift that the client was shown before: the model knows it exists, so say why.
    const shownBefore = visibility.code === "E_TOOL_DRIFT" && input.shownBefore;
    if (visibility.explain || shownBefore) {
      return {
        kind: "deny",
        code: visibility.code ?? "E_TOOL_NOT_ALLOWED",
        reason: visibility.reason,
        rule: visibility.rule,
        violations: [],
        by: "policy",
        shownToClient: shownBefore,
      };
    }
    return { kind: "hidden", code: visibility.code, reason: visibility.reason, rule: visibility.rule };
  }
  const decision = gate.decideCall(tool, input.args, input.counters, callContext(input, definition));
  if (decision.decision === "deny") {
    return {
      kind: "deny",
      code: decision.code ?? "E_TOOL_DENIED",
      reason: decision.reason,
      rule: decision.rule,
      violations: decision.violations,
      by: "policy",
      shownToClient: true,
    };
  }
  const plan = planObligations(decision, input.cannotAsk);
  switch (plan.kind) {
    case "refuse": {
      const denied: CallVerdict = {
        kind: "deny",
        code: plan.code,
        reason: plan.reason,
        rule: plan.rule,
        violations: [],
        by: "policy",
        shownToClient: true,
      };
      if (plan.artifactProblem !== undefined) {
        denied.rejected = {
          problem: plan.artifactProblem,
          ...(plan.artifactDigest === undefined ? {} : { digest: plan.artifactDigest }),
        };
      }
      return denied;
    }
    case "ask":
      return {
        kind: "allow",
        reason: decision.reason,
        rule: decision.rule,
        warnings: decision.warnings,
        ask: plan.rejected === undefined ? { rule: plan.rule } : { rule: plan.rule, rejected: plan.rejected },
      };
    case "forward": {
      const allowed: CallVerdict = {
        kind: "allow",
        reason: decision.reason,
        rule: decision.rule,
        warnings: decision.warnings,
      };
      if (plan.approval !== undefined) allowed.approval = plan.approval;
      return allowed;
    }
  }
}

/**
 * The name stage by the name alone, for a surface that has not fetched the catalog yet: a tool the name
 * rules hide (and do not explain) needs no catalog and no server to be answered as absent.
 */
export function hiddenByName(gate: ToolGate, tool: string): CallVerdict | null {
  const byName = gate.visibility({ name: tool });
  if (byName.visible || byName.explain) return null;
  return { kind: "hidden", code: byName.code, reason: byName.reason, rule: byName.rule };
}

/** What the decision knows beyond name and arguments: the artifact, the server's schema, the filesystem. */
function callContext(input: VerdictInput, definition: ListedTool): CallContext {
  const context: CallContext = {};
  if (input.lookup.kind === "found") context.approval = input.lookup.artifact;
  else if (input.lookup.kind === "in-arguments") context.approvalProblem = IN_ARGUMENTS_PROBLEM;
  if (input.approvalKeys !== undefined) context.approvalKeys = input.approvalKeys;
  if (input.principal !== undefined) context.principal = input.principal;
  if (definition.inputSchema !== undefined) context.inputSchema = definition.inputSchema;
  if (input.realpath !== undefined) context.realpath = input.realpath;
  return context;
}
