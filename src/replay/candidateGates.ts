import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import { createPolicyGate } from "../engine/policy/policyGate.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { serverFilter } from "../engine/policy/serverFilter.js";
import type { GateFor } from "./replayLogs.js";

/**
 * The candidate's gate for each server a log names, built as the gateway builds it. With a configuration
 * directory: serve's gate (serverFilter: the whitelist layers of the directory's context, then the policy);
 * wrap's logs name no server and take the directory's only server. With the policy alone: the policy's
 * gate, knowing the server by the name the log gives it (as serve's pins and `<server>__<tool>` entries do).
 */
export function candidateGates(
  policy: ActivePolicy,
  dir: { config: ConfigDir; selection: ContextSelection } | null,
): GateFor {
  if (dir === null) {
    return (server) =>
      server === null
        ? createPolicyGate(policy.compiled)
        : createPolicyGate(policy.compiled, { serverId: server, gatewayName: server });
  }
  const names = dir.config.mcp.servers.map((s) => s.name);
  return (server) => {
    const name = server ?? (names.length === 1 ? names[0]! : null);
    if (name === null) {
      return `the log is wrap's (its events name no server) and the configuration directory has ${names.length} servers: replay it with --policy alone, or with a directory of that one server`;
    }
    try {
      return serverFilter(dir.config, dir.selection, name, policy).gate;
    } catch (error) {
      return `server '${name}': ${error instanceof Error ? error.message : String(error)}`;
    }
  };
}
