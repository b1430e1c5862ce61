import type { CallContext, Decision, ItemKind, SessionCounters } from "../model/decision.js";
import type { NameVerdict, ToolContext, ToolDefinition, ToolGate } from "../model/gate.js";

/** A gate whose policy can be replaced while it is in use (a configuration reload). */
export interface ReloadableGate {
  /** The gate to hand out: it always decides with the gate most recently put in. */
  readonly gate: ToolGate;
  /** From the next decision on, `next` decides; a decision under way finishes with the one it began with. */
  replace(next: ToolGate): void;
}

/**
 * Wraps `initial` so a reload can swap the policy under every holder at once (sessions, list filters, item
 * guards) between decisions. Optional parts of a gate (redaction, item rules, …) are read through getters:
 * whether a policy has them is itself part of the policy, so a reload can add or remove them.
 */
export function reloadableGate(initial: ToolGate): ReloadableGate {
  let current = initial;
  const gate: ToolGate = {
    get policyDigest() {
      return current.policyDigest;
    },
    get limited() {
      return current.limited;
    },
    visibility: (tool: ToolDefinition, context?: ToolContext): NameVerdict =>
      current.visibility(tool, context),
    decideCall: (tool: string, args: unknown, counters: SessionCounters, context?: CallContext): Decision =>
      current.decideCall(tool, args, counters, context),
    requestLimit: (counters: SessionCounters) => current.requestLimit(counters),
    get redaction() {
      const inner = current;
      return inner.redaction === undefined ? undefined : (tool: string) => inner.redaction!(tool);
    },
    get catalogWarnings() {
      const inner = current;
      return inner.catalogWarnings === undefined
        ? undefined
        : (toolNames: readonly string[], serverId?: string) => inner.catalogWarnings!(toolNames, serverId);
    },
    get unmatchedDeny() {
      const inner = current;
      return inner.unmatchedDeny === undefined
        ? undefined
        : (toolNames: readonly string[]) => inner.unmatchedDeny!(toolNames);
    },
    get itemAccess() {
      const inner = current;
      return inner.itemAccess === undefined
        ? undefined
        : (kind: ItemKind, name: string, shownAs?: string) => inner.itemAccess!(kind, name, shownAs);
    },
  };
  return {
    gate,
    replace(next: ToolGate): void {
      current = next;
    },
  };
}
