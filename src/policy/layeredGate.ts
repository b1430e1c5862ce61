import type { Decision, SessionCounters } from "./decision.js";
import type { NameVerdict, ToolDefinition, ToolGate } from "./gate.js";
import { layerVerdict, type Layer } from "./layers.js";

/**
 * A gate whose name stage first asks the whitelist layers of one server and then the inner gate (the policy
 * file, DESIGN §2 order). A tool hidden by a layer is hidden, never explained: the spec makes it
 * indistinguishable from a tool the server does not have. Calls are decided by the inner gate.
 */
export function withWhitelistLayers(layers: readonly Layer[], inner: ToolGate): ToolGate {
  const frozen = [...layers];
  return {
    get policyDigest() {
      return inner.policyDigest;
    },
    visibility(tool: ToolDefinition): NameVerdict {
      const verdict = layerVerdict(frozen, tool.name);
      if (!verdict.visible) return verdict;
      return inner.visibility(tool);
    },
    decideCall(tool: string, args: unknown, counters: SessionCounters): Decision {
      return inner.decideCall(tool, args, counters);
    },
    requestLimitReached(counters: SessionCounters): boolean {
      return inner.requestLimitReached(counters);
    },
  };
}
