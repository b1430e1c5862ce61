import { describeKind, entryOf } from "../../../config/sourceTree.js";
import type { SourceMap } from "../../../engine/model/source.js";
import {
  chooseServer,
  ImportInputError,
  lineNote,
  starredName,
  STARRED_WHY,
  type ImportedEntry,
  type ImportedPolicy,
  type ImportOutcome,
  type ReportItem,
} from "./model.js";
import { asMap, listEntry, readJsonc, spotOf, type StringItem } from "./read.js";

/**
 * `--from gemini`: Gemini CLI's settings.json (JSONC: it strips comments), `mcpServers.<name>` with
 * `includeTools`, `excludeTools` and `trust` (notes/clients.md §5). Gemini's own check, per tool:
 *
 *   excluded (exact name) → not registered · includeTools set and no entry `name` or `name(…)` → not
 *   registered · otherwise registered, and each call confirmed by the user unless `trust: true`
 *
 * Every part has an exact toolgate form: excludeTools → tools.deny (deny beats allow, as exclude wins);
 * includeTools → tools.allow (absent: no allowlist; `[]`: nothing); confirmation → approval_required
 * `*`. Top-level `mcp.excluded` / `mcp.allowed` (server names) switch a whole server off: `allow: []`.
 */
export function importGemini(file: string, text: string, requested?: string): ImportOutcome {
  const root = asMap(readJsonc(file, text), "the settings file");
  const serversEntry = entryOf(root, "mcpServers");
  if (serversEntry === undefined) {
    throw new ImportInputError('the settings file has no "mcpServers" object', { line: 1, column: 1 });
  }
  const servers = asMap(serversEntry.value, "mcpServers");
  const server = chooseServer(
    servers.entries.map((e) => e.key),
    requested,
  );
  const config = asMap(entryOf(servers, server)!.value, `mcpServers.${server}`);
  const where = `mcpServers.${server}`;
  const include = listEntry(config, "includeTools", `${where}.includeTools`);
  const exclude = listEntry(config, "excludeTools", `${where}.excludeTools`) ?? [];
  const trust = trusted(config, where);
  const off = switchedOff(root, server);

  const report: ReportItem[] = [];
  const literal = (list: string) => (item: StringItem) => {
    if (!starredName(item.value)) return true;
    report.push({ line: item.line, column: item.column, item: `${list} "${item.value}"`, why: STARRED_WHY });
    return false;
  };
  const policy: ImportedPolicy = {
    format: "gemini",
    file,
    server,
    allow: include === undefined ? null : include.filter(literal("includeTools")).flatMap(includedNames),
    deny: exclude
      .filter(literal("excludeTools"))
      .map((item) => ({ pattern: item.value, from: `excludeTools "${item.value}"${lineNote(item)}` })),
    approvalRequired: [],
    notes: [
      "Gemini CLI registers a tool unless excludeTools names it or includeTools is set and does not (exclude wins).",
    ],
  };
  if (off !== undefined) {
    policy.allow = [];
    policy.notes.push(`The server is switched off by ${off}: nothing is allowed.`);
  }
  if (trust) {
    policy.notes.push("trust: true: Gemini CLI calls the tools without asking, so no approval is required.");
  } else {
    policy.approvalRequired = [{ pattern: "*", from: `Gemini CLI asks before each call (no "trust": true)` }];
    policy.notes.push(
      "Without trust: true, Gemini CLI asks before each call: every allowed tool needs approval.",
    );
  }
  return {
    policy,
    report,
    ignored: [],
    ...(off === undefined ? {} : { switchedOff: { by: off, sure: true } }),
  };
}

/**
 * Gemini includes a tool when an entry equals its name or starts with `name(`; so an entry includes the
 * name before each `(` it contains as well as itself (`read_file(path)` includes `read_file`).
 */
function includedNames(item: StringItem): ImportedEntry[] {
  const from = `includeTools "${item.value}"${lineNote(item)}`;
  const names = [item.value];
  for (let i = item.value.indexOf("("); i !== -1; i = item.value.indexOf("(", i + 1)) {
    names.push(item.value.slice(0, i));
  }
  return [...new Set(names)].map((pattern) => ({ pattern, from }));
}

function trusted(config: SourceMap, where: string): boolean {
  const entry = entryOf(config, "trust");
  if (entry === undefined) return false;
  if (entry.value.kind !== "scalar" || typeof entry.value.value !== "boolean") {
    throw new ImportInputError(
      `${where}.trust must be true or false, but this is ${describeKind(entry.value)}`,
      spotOf(entry.value),
    );
  }
  return entry.value.value;
}

/** `mcp.excluded` naming the server, or `mcp.allowed` set without it: Gemini does not start it. */
function switchedOff(root: SourceMap, server: string): string | undefined {
  const mcp = entryOf(root, "mcp");
  if (mcp === undefined) return undefined;
  const map = asMap(mcp.value, "mcp");
  const excluded = listEntry(map, "excluded", "mcp.excluded");
  const hit = excluded?.find((item) => item.value === server);
  if (hit !== undefined) return `mcp.excluded${lineNote(hit)}`;
  const allowed = listEntry(map, "allowed", "mcp.allowed");
  if (allowed !== undefined && !allowed.some((item) => item.value === server)) {
    return `mcp.allowed, which does not name it${lineNote(spotOf(entryOf(map, "allowed")!.value))}`;
  }
  return undefined;
}
