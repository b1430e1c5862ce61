import { describeKind, entryOf } from "../../../config/sourceTree.js";
import type { SourceMap, SourceNode } from "../../../engine/model/source.js";
import { ImportInputError, lineNote, type ImportOutcome, type Spot } from "./model.js";
import { asMap, listEntry, spotOf, stringList } from "./read.js";

/**
 * The settings of a Claude Code settings file that switch a whole MCP server off, as Claude Code checks
 * them before it starts a server (managed-mcp docs, "How a server is evaluated"; settings reference):
 *
 * 1. `deniedMcpServers`: entries `{ "serverName": … }`, `{ "serverCommand": [...] }` or
 *    `{ "serverUrl": … }`; a match blocks the server, whatever else says.
 * 2. `allowedMcpServers`, when set (`[]` allows none): a stdio server must match a `serverCommand` entry
 *    and a remote one a `serverUrl` entry; a `serverName` entry counts only while the list has no entry
 *    of the other kind for that transport.
 * 3. `disabledMcpjsonServers`: names of servers of a project's `.mcp.json` that Claude Code does not
 *    start. It wins over `enabledMcpjsonServers` and `enableAllProjectMcpServers`, which only approve
 *    such servers (an unapproved one is asked about, not switched off), so those two are not read.
 *
 * A settings file names a server but says neither what it runs nor where it is defined. A setting whose
 * reach depends on that (a command or URL entry; `disabledMcpjsonServers`, which reaches `.mcp.json`
 * servers only) is taken to switch the server off, the stricter reading, and says why (`unsure`).
 */
export interface ServerSwitch {
  /** The setting, for the policy's notes and the summary line: `deniedMcpServers {"serverName":"x"} (line 4)`. */
  by: string;
  /** For the report: the item. */
  item: string;
  spot: Spot;
  /** Why Claude Code may still start the server; absent when the setting surely switches it off. */
  unsure?: string;
}

export interface ServerSwitches {
  /** Servers named by these settings: a file whose only word on a server is switching it off is about it. */
  named: string[];
  /** What switches `server` off, in Claude Code's order; empty when nothing does. */
  switchesOff(server: string): ServerSwitch[];
}

type Match = { key: "serverName" | "serverUrl"; value: string } | { key: "serverCommand"; value: string[] };

interface ListEntry extends Spot {
  match: Match;
}

const ENTRY_KEYS = ["serverName", "serverCommand", "serverUrl"] as const;

export function readServerSwitches(root: SourceMap): ServerSwitches {
  const denied = serverList(root, "deniedMcpServers");
  const allowed = serverList(root, "allowedMcpServers");
  const allowedAt = entryOf(root, "allowedMcpServers");
  const disabled = listEntry(root, "disabledMcpjsonServers", "disabledMcpjsonServers") ?? [];
  const named = [
    ...[...(denied ?? []), ...(allowed ?? [])].flatMap((e) =>
      e.match.key === "serverName" ? [e.match.value] : [],
    ),
    ...disabled.map((item) => item.value),
  ];
  return {
    named: [...new Set(named)],
    switchesOff(server) {
      const out: ServerSwitch[] = [];
      for (const entry of denied ?? []) {
        const by = `deniedMcpServers ${JSON.stringify({ [entry.match.key]: entry.match.value })}`;
        const spot = { line: entry.line, column: entry.column };
        if (entry.match.key === "serverName") {
          if (entry.match.value === server) out.push({ by: by + lineNote(entry), item: by, spot });
        } else {
          const what = entry.match.key === "serverCommand" ? "command" : "URL";
          out.push({
            by: by + lineNote(entry),
            item: by,
            spot,
            unsure: `it blocks servers by their ${what}, and a settings file does not say what ${server} runs; carried as switching ${server} off (stricter): if it does not match, import a copy of the file without this entry`,
          });
        }
      }
      if (allowed !== undefined) {
        const spot = spotOf(allowedAt!.value);
        const byName = allowed.some((e) => e.match.key === "serverName" && e.match.value === server);
        const byOther = allowed.some((e) => e.match.key !== "serverName");
        if (byOther) {
          out.push({
            by: `allowedMcpServers${lineNote(spot)}`,
            item: "allowedMcpServers",
            spot,
            unsure: `Claude Code lets a server in by its command or URL once the list has such entries, and a settings file does not say what ${server} runs; carried as switching ${server} off (stricter): if it matches, import a copy of the file without allowedMcpServers`,
          });
        } else if (!byName) {
          out.push({
            by: `allowedMcpServers, which does not name it${lineNote(spot)}`,
            item: "allowedMcpServers",
            spot,
          });
        }
      }
      const hit = disabled.find((item) => item.value === server);
      if (hit !== undefined) {
        out.push({
          by: `disabledMcpjsonServers${lineNote(hit)}`,
          item: `disabledMcpjsonServers "${server}"`,
          spot: { line: hit.line, column: hit.column },
          unsure: `Claude Code applies it only to a server defined in a project's .mcp.json, and a settings file does not say where ${server} is defined; carried as switching ${server} off (stricter)`,
        });
      }
      return out;
    },
  };
}

/** `deniedMcpServers` or `allowedMcpServers`: a list of one-key objects; anything else is bad input. */
function serverList(root: SourceMap, key: string): ListEntry[] | undefined {
  const entry = entryOf(root, key);
  if (entry === undefined) return undefined;
  if (entry.value.kind !== "seq") {
    throw new ImportInputError(
      `${key} must be a list, but this is ${describeKind(entry.value)}`,
      spotOf(entry.value),
    );
  }
  return entry.value.items.map((item, i) => ({ ...spotOf(item), match: matchOf(item, `${key}[${i}]`) }));
}

function matchOf(node: SourceNode, where: string): Match {
  const map = asMap(node, where);
  const keys = map.entries.map((e) => e.key);
  if (keys.length !== 1 || !(ENTRY_KEYS as readonly string[]).includes(keys[0]!)) {
    throw new ImportInputError(
      `${where} must have exactly one of ${ENTRY_KEYS.join(", ")}, but it has ${keys.length === 0 ? "none" : keys.join(", ")}`,
      spotOf(node),
      'Claude Code\'s entries look like { "serverName": "github" }',
    );
  }
  const key = keys[0] as (typeof ENTRY_KEYS)[number];
  const value = map.entries[0]!.value;
  if (key === "serverCommand") {
    return { key, value: stringList(value, `${where}.serverCommand`).map((item) => item.value) };
  }
  if (value.kind !== "scalar" || typeof value.value !== "string" || value.value === "") {
    throw new ImportInputError(
      `${where}.${key} must be a non-empty string, but this is ${describeKind(value)}`,
      spotOf(value),
    );
  }
  return { key, value: value.value };
}

/**
 * The outcome for a server that is switched off, as Gemini's import does it: `allow: []`, and a note
 * naming the setting. When a setting surely switches it off, Claude Code starts none of its tools and
 * the policy allows none: every decision is exact, so what the rules could not carry no longer matters.
 * Otherwise each setting that may switch it off is reported, with the rules' own report.
 */
export function applySwitches(outcome: ImportOutcome, off: readonly ServerSwitch[]): ImportOutcome {
  if (off.length === 0) return outcome;
  const { policy } = outcome;
  policy.allow = [];
  const sure = off.find((s) => s.unsure === undefined);
  if (sure !== undefined) {
    policy.notes.push(`The server is switched off by ${sure.by}: nothing is allowed.`);
    return { policy, report: [], ignored: outcome.ignored, switchedOff: { by: sure.by, sure: true } };
  }
  const by = off.map((s) => s.by).join(", ");
  policy.notes.push(`The server may be switched off by ${by}: nothing is allowed (the stricter reading).`);
  return {
    policy,
    report: [...off.map((s) => ({ ...s.spot, item: s.item, why: s.unsure! })), ...outcome.report],
    ignored: outcome.ignored,
    switchedOff: { by, sure: false },
  };
}
