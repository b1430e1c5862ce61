import type { Policy } from "../engine/model/policy.js";
import { errorText, printError } from "./errorReport.js";

/**
 * Which server `wrap`'s pins are bound to: the server it was started for, whatever that server calls
 * itself. `--server` (the mcp.json name, as serve names it) or else `--label` when given; else the only
 * server the policy's tool_pins name; else none (the pins name no server and apply by tool name). The name
 * in the server's initialize answer is never used: a server that renamed itself would slip out of its pins.
 */
export interface PinServer {
  /** The server_id pins are matched against; undefined when the pins name no server and none was given. */
  serverId?: string;
  /** True when serverId is the one server the pins name (not a flag). */
  fromPins: boolean;
}

/** The servers the policy's tool_pins name, in file order, each once. */
export function pinnedServers(policy: Policy | null): string[] {
  if (policy === null) return [];
  return [...new Set(policy.toolPins.flatMap((p) => (p.serverId === undefined ? [] : [p.serverId])))];
}

/**
 * The binding, or E_PIN_SERVER (printed on stderr, null returned) when the pins name several servers and
 * neither --server nor --label says which one this is: wrap runs one server, and guessing would apply
 * another server's pins or none.
 */
export function pinServer(
  flags: { server?: string; label?: string },
  policy: Policy | null,
  policyPath: string | undefined,
): PinServer | null {
  const given = flags.server ?? flags.label;
  if (given !== undefined) return { serverId: given, fromPins: false };
  const named = pinnedServers(policy);
  if (named.length === 0) return { fromPins: false };
  if (named.length === 1) return { serverId: named[0]!, fromPins: true };
  printError(
    errorText(
      "E_PIN_SERVER",
      `the tool_pins of ${policyPath ?? "the policy"} name ${named.length} servers (${named.map((n) => `'${n}'`).join(", ")}), ` +
        "and wrap runs one: it cannot tell which pins are this server's; the server was not started",
      `pass --label <server_id> (or --server <name>) to say which server this is, e.g. --label ${named[0]}; ` +
        "the name a server gives itself is never used to choose its pins",
    ),
  );
  return null;
}
