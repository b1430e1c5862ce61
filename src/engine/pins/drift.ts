import type { ToolPin, UnpinnedToolsMode } from "../model/policy.js";
import { ToolgateError } from "../errors.js";
import type { Rule } from "../model/decision.js";
import type { ToolDefinition } from "../model/gate.js";
import { exactSchemaHash } from "./exactHash.js";
import { metaHash, schemaHash } from "./hashes.js";

/**
 * Tool pins: does the tool a server lists now match what the policy pinned?
 *
 * Which pins apply to a tool: those whose `tool_name` equals the tool's name, narrowed by server. The
 * server is the name toolgate knows it by (`serverId`: wrap's `--server`/`--label`, else the only server
 * the pins name; serve's mcp.json name), never the name a server gives itself, which the server controls.
 * Knowing the server, the first non-empty group applies:
 *
 * 1. pins naming that `server_id`;
 * 2. pins without a `server_id` (a pin for any server);
 * 3. pins naming a server toolgate does not serve here (`served`: mcp.json's names; wrap's one server). Such
 *    a pin was written under a name toolgate never uses for a server (the server's own name in a file made
 *    by `toolgate pin -- CMD`, a label not passed): it still holds the tool to its definition, so a drifted
 *    definition is withheld rather than shown unpinned.
 *
 * Pins naming another served server never apply (they pin that server's tool of the same name). When the
 * caller does not know the server, every pin with that `tool_name` applies. The key of the `tool_pins` map
 * is only a label: a pin keyed `read_file` with `tool_name: cat` pins `cat`, and a renamed tool is simply
 * unpinned (withheld under `unpinned_tools: deny`; see unmatchedPins for the pin left behind).
 *
 * A tool must match EVERY pin that applies (several pins for one tool are several claims about it), on
 * `schema_hash`, `meta_hash`, and `exact_schema_hash` when the pin has one; the latter needs the raw
 * schema text (exactHash.ts), and without it the check fails. A tool that cannot be hashed (a schema RFC
 * 8785 cannot express, a description that is not a string) has drifted: fail closed.
 */

export interface PinCheckOptions {
  /** The server the tool comes from, as `server_id` in pins names it; absent: unknown. */
  serverId?: string;
  /** Every server toolgate serves beside `serverId` (see pinsForTool); absent: `serverId` alone. */
  served?: ReadonlySet<string>;
  /** `enforcement.unpinned_tools`. */
  unpinned: UnpinnedToolsMode;
  /** The tool's inputSchema as the raw JSON text the server sent (extractToolSchemaTexts). */
  exactSchemaText?: string;
}

/** On success, `pins` lists the keys of the pins the tool matched (empty: unpinned, allowed). */
export type PinCheck =
  { ok: true; pins: string[] } | { ok: false; code: "E_TOOL_DRIFT"; reason: string; rule: Rule };

const NONE: ReadonlySet<string> = new Set();

export function pinsForTool(
  pins: readonly ToolPin[],
  toolName: string,
  serverId?: string,
  served: ReadonlySet<string> = NONE,
): ToolPin[] {
  const named = pins.filter((p) => p.toolName === toolName);
  if (serverId === undefined) return named;
  const own = named.filter((p) => p.serverId === serverId);
  if (own.length > 0) return own;
  const unnamed = named.filter((p) => p.serverId === undefined);
  if (unnamed.length > 0) return unnamed;
  return named.filter((p) => isStray(p, serverId, served));
}

/** A pin naming a server that is neither `serverId` nor one of `served`: see pinsForTool, group 3. */
export function isStray(pin: ToolPin, serverId: string, served: ReadonlySet<string>): boolean {
  return pin.serverId !== undefined && pin.serverId !== serverId && !served.has(pin.serverId);
}

export function checkPins(
  pins: readonly ToolPin[],
  tool: ToolDefinition,
  options: PinCheckOptions,
): PinCheck {
  const applying = pinsForTool(pins, tool.name, options.serverId, options.served);
  if (applying.length === 0) {
    if (options.unpinned === "allow") return { ok: true, pins: [] };
    const from = options.serverId === undefined ? "" : ` on server '${options.serverId}'`;
    return {
      ok: false,
      code: "E_TOOL_DRIFT",
      reason: `tool '${tool.name}'${from} has no pin and enforcement.unpinned_tools is 'deny' (a new or renamed tool needs review: add it to tool_pins)`,
      rule: { layer: "policy", kind: "enforcement.unpinned_tools", value: "deny" },
    };
  }

  const actual = hashesOf(tool);
  for (const pin of applying) {
    const drift = pinMismatch(pin, actual, options.exactSchemaText);
    if (drift !== null) {
      return {
        ok: false,
        code: "E_TOOL_DRIFT",
        reason: `tool '${tool.name}' does not match tool_pins.${pin.key}: ${drift}`,
        rule: { layer: "policy", kind: "tool_pins", value: pin.key, at: pin.at },
      };
    }
  }
  return { ok: true, pins: applying.map((p) => p.key) };
}

/**
 * Pins whose tool (on this server, when known) is not in the list: a tool renamed or removed upstream. A
 * pin naming a server toolgate does not serve is left out: which server should list its tool is unknown
 * (catalog warnings say so about the pin itself).
 */
export function unmatchedPins(
  pins: readonly ToolPin[],
  toolNames: Iterable<string>,
  serverId?: string,
): ToolPin[] {
  const present = new Set(toolNames);
  return pins.filter(
    (p) =>
      !present.has(p.toolName) &&
      (serverId === undefined || p.serverId === undefined || p.serverId === serverId),
  );
}

type Hashed = { ok: true; hash: string } | { ok: false; why: string };

function hashesOf(tool: ToolDefinition): { schema: Hashed; meta: Hashed } {
  return {
    schema: attempt(() => schemaHash(tool.inputSchema)),
    meta: attempt(() => metaHash(tool.description)),
  };
}

function pinMismatch(
  pin: ToolPin,
  actual: { schema: Hashed; meta: Hashed },
  exactText: string | undefined,
): string | null {
  if (!actual.schema.ok) return `its inputSchema cannot be hashed (${actual.schema.why})`;
  if (actual.schema.hash !== pin.schemaHash) {
    return `its inputSchema changed (schema_hash ${actual.schema.hash}, pinned ${pin.schemaHash})`;
  }
  if (!actual.meta.ok) return `its description cannot be hashed (${actual.meta.why})`;
  if (actual.meta.hash !== pin.metaHash) {
    return `its description changed (meta_hash ${actual.meta.hash}, pinned ${pin.metaHash})`;
  }
  if (pin.exactSchemaHash !== undefined) {
    if (exactText === undefined) {
      return "the pin has exact_schema_hash and the server's raw schema text was not available to check it";
    }
    const exact = attempt(() => exactSchemaHash(exactText));
    if (!exact.ok) return `its raw inputSchema cannot be hashed (${exact.why})`;
    if (exact.hash !== pin.exactSchemaHash) {
      return `its inputSchema changed an integer beyond 2^53 (exact_schema_hash ${exact.hash}, pinned ${pin.exactSchemaHash})`;
    }
  }
  return null;
}

function attempt(f: () => string): Hashed {
  try {
    return { ok: true, hash: f() };
  } catch (e) {
    if (e instanceof ToolgateError) return { ok: false, why: `${e.code}: ${e.message}` };
    return { ok: false, why: e instanceof Error ? e.message : String(e) };
  }
}
