import type { Policy } from "../model/policy.js";
import { checkPins, pinsForTool } from "../pins/drift.js";
import type { Rule } from "../model/decision.js";
import type { ToolContext, ToolDefinition } from "../model/gate.js";

export interface PinWithheld {
  code: "E_TOOL_DRIFT";
  rule: Rule;
  reason: string;
}

export type PinStage = (
  tool: ToolDefinition,
  context: ToolContext | undefined,
  serverId: string | undefined,
) => PinWithheld | null;

/**
 * The pin step of the name stage (docs/design.md, two stages: pins): `null` when the tool may be shown, else why it is
 * withheld (`E_TOOL_DRIFT`: its definition does not match a pin, or it has none under
 * `unpinned_tools: deny`). A bare name (see ToolContext.listed) is judged by name only: withheld when it has
 * no pin and unpinned tools are denied, otherwise left for the check of its definition. `served`: every
 * server toolgate serves with this policy (mcp.json's names; wrap's one server), which decides which pins
 * name a server toolgate does not serve (drift.ts, pinsForTool).
 */
export function createPinStage(policy: Policy, served: readonly string[] = []): PinStage {
  const pins = policy.toolPins;
  const servedSet: ReadonlySet<string> = new Set(served);
  const unpinned = policy.enforcement.unpinnedTools;
  // A gateway keeps a listed definition object until its next catalog fetch, so remembering the answer per
  // object (and server) saves hashing the schema on every call. Per gate: another policy answers differently.
  const remembered = new WeakMap<object, { serverId: string | undefined; verdict: PinWithheld | null }>();
  return (tool, context, serverId) => {
    const listed = context?.listed ?? tool.inputSchema !== undefined;
    if (!listed) {
      if (unpinned === "allow" || pinsForTool(pins, tool.name, serverId, servedSet).length > 0) return null;
      return withheld(
        checkPins(
          pins,
          tool,
          serverId === undefined ? { unpinned } : { serverId, served: servedSet, unpinned },
        ),
      );
    }
    const known = remembered.get(tool);
    if (known !== undefined && known.serverId === serverId) return known.verdict;
    const applying = pinsForTool(pins, tool.name, serverId, servedSet);
    const needsText = applying.some((p) => p.exactSchemaHash !== undefined);
    const exactSchemaText = needsText ? context?.exactSchemaText?.() : undefined;
    const verdict = withheld(
      checkPins(pins, tool, {
        unpinned,
        ...(serverId === undefined ? {} : { serverId, served: servedSet }),
        ...(exactSchemaText === undefined ? {} : { exactSchemaText }),
      }),
    );
    remembered.set(tool, { serverId, verdict });
    return verdict;
  };
}

function withheld(check: ReturnType<typeof checkPins>): PinWithheld | null {
  return check.ok ? null : { code: check.code, rule: check.rule, reason: check.reason };
}
