import type { ConfigDir, ContextSelection } from "../model/configDir.js";
import type { ExtraLayer } from "./explain.js";
import type { ToolDefinition, ToolGate } from "../model/gate.js";
import { withWhitelistLayers } from "./layeredGate.js";
import { resolveLayers, type Layer } from "./layers.js";
import {
  pinExtraLayer,
  policyExtraLayer,
  policyHasNameRules,
  policyHasPins,
  type ActivePolicy,
} from "./policyLayer.js";
import { allowAllGate, createPolicyGate } from "./policyGate.js";

/**
 * Everything that filters one server's tools in one context, built once from the configuration and the policy:
 * the whitelist layers, the policy as an extra layer (for views), and the gate that decides listing and
 * calling (whitelist layers first, then the policy; without a policy, the layers over an allow-all gate).
 * `info`, the console, `wrap --config-dir` and `serve` all build their decisions here. Pure.
 */
export interface ServerFilter {
  server: string;
  layers: Layer[];
  /** The policy layer when there is a policy; empty otherwise. */
  extras: ExtraLayer[];
  gate: ToolGate;
  /** At least one active filter layer: a whitelist layer, or a policy with name rules (`[filtered]`). */
  filtered: boolean;
}

/**
 * Throws `E_UNKNOWN_SERVER` when `server` is not in mcp.json and `E_SELECTION` when the selection names
 * something not loaded (see resolveLayers).
 */
export function serverFilter(
  config: ConfigDir,
  selection: ContextSelection,
  server: string,
  policy: ActivePolicy | null,
): ServerFilter {
  const layers = resolveLayers(config, selection, server);
  const served = config.mcp.servers.map((s) => s.name);
  // Pins name servers by their mcp.json name (`server_id`), as `toolgate pin --server` writes them.
  const inner =
    policy === null
      ? allowAllGate()
      : createPolicyGate(policy.compiled, {
          serverId: server,
          servers: served,
          gatewayName: server,
        });
  return {
    server,
    layers,
    extras:
      policy === null
        ? []
        : [
            policyExtraLayer(policy),
            ...(policyHasPins(policy.compiled.policy) ? [pinExtraLayer(policy, server, served)] : []),
          ],
    gate: withWhitelistLayers(layers, inner, server),
    filtered:
      layers.length > 0 ||
      (policy !== null &&
        (policyHasNameRules(policy.compiled.policy) || policyHasPins(policy.compiled.policy))),
  };
}

/** The name a tool gets when several servers' tools are offered together: `<server>__<tool>`. */
export function composedToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

export interface ComposedTool {
  name: string;
  server: string;
  tool: ToolDefinition;
}

/**
 * The tools a model would be offered across servers (each with its own filter), in the order given: per
 * server, the tools its gate shows, in catalog order.
 */
export function composeVisibleTools(
  servers: readonly { server: string; gate: ToolGate; tools: readonly ToolDefinition[] }[],
): ComposedTool[] {
  const out: ComposedTool[] = [];
  for (const s of servers) {
    for (const tool of s.tools) {
      if (s.gate.visibility(tool).visible) {
        out.push({ name: composedToolName(s.server, tool.name), server: s.server, tool });
      }
    }
  }
  return out;
}
