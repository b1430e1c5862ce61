import type { CallContext, Decision, ItemKind, SessionCounters } from "../model/decision.js";
import { formatDiagnostic } from "../model/diagnostics.js";
import type { NameVerdict, ToolContext, ToolDefinition, ToolGate } from "../model/gate.js";
import { deadPatternDiagnostics, deadPatterns } from "./explain.js";
import { layerVerdict, type Layer } from "./layers.js";

/**
 * A gate whose name stage first asks the whitelist layers of one server and then the inner gate (the policy
 * file, docs/design.md, two stages order). A tool hidden by a layer is hidden, never explained: the spec makes it
 * indistinguishable from a tool the server does not have. Calls are decided by the inner gate. With the
 * server's name, the warnings about a fetched catalog include the layers' dead patterns (file and line),
 * which the spec says are logged whenever the catalog is fetched.
 */
export function withWhitelistLayers(layers: readonly Layer[], inner: ToolGate, server?: string): ToolGate {
  const frozen = [...layers];
  return {
    get policyDigest() {
      return inner.policyDigest;
    },
    visibility(tool: ToolDefinition, context?: ToolContext): NameVerdict {
      const verdict = layerVerdict(frozen, tool.name);
      if (!verdict.visible) return verdict;
      return inner.visibility(tool, context);
    },
    decideCall(tool: string, args: unknown, counters: SessionCounters, context?: CallContext): Decision {
      return inner.decideCall(tool, args, counters, context);
    },
    ...(inner.limited === undefined ? {} : { limited: inner.limited }),
    requestLimit(counters: SessionCounters) {
      return inner.requestLimit(counters);
    },
    redaction(tool: string) {
      return inner.redaction?.(tool) ?? null;
    },
    catalogWarnings(toolNames: readonly string[], serverId?: string): string[] {
      const dead =
        server === undefined
          ? []
          : deadPatternDiagnostics(server, deadPatterns(frozen, toolNames)).map(formatDiagnostic);
      return [...dead, ...(inner.catalogWarnings?.(toolNames, serverId) ?? [])];
    },
    unmatchedDeny(toolNames: readonly string[]) {
      return inner.unmatchedDeny?.(toolNames) ?? [];
    },
    // Whitelist layers filter tools only: resources and prompts are the policy's alone.
    itemAccess(kind: ItemKind, name: string, shownAs?: string) {
      return inner.itemAccess?.(kind, name, shownAs) ?? null;
    },
  };
}
