import { parse, TomlError } from "smol-toml";
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
  type Spot,
} from "./model.js";

/**
 * `--from codex`: Codex's config.toml, table `[mcp_servers.<name>]` (notes/clients.md §6). Codex's
 * `ToolFilter` registers a tool when `enabled_tools` is absent or names it, and `disabled_tools` does not
 * (exact names; disabled wins, "removed after applying enabled_tools"; `enabled_tools = []` allows
 * nothing); `enabled = false` starts no tool of the server. Each has an exact toolgate form:
 * enabled_tools → tools.allow, disabled_tools → tools.deny, `enabled = false` → `allow: []`.
 *
 * `default_tools_approval_mode` and `tools.<tool>.approval_mode` are listed in the notes without their
 * values' meaning, so they are carried the strict way (approval required) and reported.
 */

type Table = Record<string, unknown>;

export function importCodex(file: string, text: string, requested?: string): ImportOutcome {
  let doc: Table;
  try {
    doc = parse(text) as Table;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const message = error.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
    throw new ImportInputError(`${message} (not valid TOML)`, { line: error.line, column: error.column });
  }
  const servers = doc.mcp_servers;
  if (servers === undefined)
    throw new ImportInputError("the file has no [mcp_servers.<name>] table", { line: 1, column: 1 });
  if (!isTable(servers)) throw new ImportInputError("mcp_servers must be a table of servers", {});
  const server = chooseServer(Object.keys(servers), requested);
  const lines = new Locator(text, server);
  const config = servers[server];
  const where = `mcp_servers.${server}`;
  if (!isTable(config)) throw new ImportInputError(`${where} must be a table`, lines.header);

  const report: ReportItem[] = [];
  const names = (key: string): ImportedEntry[] | undefined => {
    const value = config[key];
    if (value === undefined) return undefined;
    const spot = lines.key(key);
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
      throw new ImportInputError(`${where}.${key} must be a list of tool names`, spot);
    }
    return value.flatMap((name) => {
      if (!starredName(name)) return [{ pattern: name, from: `${key} "${name}"${lineNote(spot)}` }];
      report.push({ ...spot, item: `${key} "${name}"`, why: STARRED_WHY });
      return [];
    });
  };
  const enabled = config.enabled;
  if (enabled !== undefined && typeof enabled !== "boolean") {
    throw new ImportInputError(`${where}.enabled must be true or false`, lines.key("enabled"));
  }
  const policy: ImportedPolicy = {
    format: "codex",
    file,
    server,
    allow: names("enabled_tools") ?? null,
    deny: names("disabled_tools") ?? [],
    approvalRequired: [],
    notes: ["Codex registers a tool when enabled_tools is absent or names it and disabled_tools does not."],
  };
  if (enabled === false) {
    policy.allow = [];
    policy.notes.push(
      `enabled = false${lineNote(lines.key("enabled"))}: Codex starts no tool of this server.`,
    );
  }

  const approval = (item: string, value: unknown, spot: Spot, pattern: string) => {
    policy.approvalRequired.push({ pattern, from: `${item}${lineNote(spot)}` });
    report.push({
      ...spot,
      item,
      why: `what Codex does for approval mode ${JSON.stringify(value)} is not documented; carried as approval_required (stricter if the mode lets calls through)`,
    });
  };
  if (config.default_tools_approval_mode !== undefined) {
    const value = config.default_tools_approval_mode;
    approval(
      `default_tools_approval_mode = ${JSON.stringify(value)}`,
      value,
      lines.key("default_tools_approval_mode"),
      "*",
    );
  }
  const tools = config.tools;
  if (tools !== undefined) {
    if (!isTable(tools))
      throw new ImportInputError(`${where}.tools must be a table of tools`, lines.key("tools"));
    for (const [tool, settings] of Object.entries(tools)) {
      const spot = lines.tool(tool);
      if (!isTable(settings)) throw new ImportInputError(`${where}.tools.${tool} must be a table`, spot);
      for (const [key, value] of Object.entries(settings)) {
        const item = `tools.${tool}.${key} = ${JSON.stringify(value)}`;
        if (key === "approval_mode") approval(item, value, spot, tool);
        else report.push({ ...spot, item, why: "not a setting this import knows; not carried" });
      }
    }
  }
  return {
    policy,
    report,
    ignored: [],
    ...(enabled === false
      ? { switchedOff: { by: `enabled = false${lineNote(lines.key("enabled"))}`, sure: true } }
      : {}),
  };
}

function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * The TOML parser gives values, not positions; report items still want a line. Found by reading the
 * text: the server's `[mcp_servers.<name>]` header, and a key's first line below it. A file written
 * another way (inline tables, dotted keys at the top) gets no line, which the report then leaves out.
 */
class Locator {
  private readonly lines: string[];
  private readonly start: number;
  /** `mcp_servers.<name>` as the header writes it: its sub-tables start with it and a dot. */
  private readonly inner: string;
  readonly header: Spot;

  constructor(text: string, server: string) {
    this.lines = text.split("\n");
    const name = `(?:${escape(server)}|"${escape(server)}"|'${escape(server)}')`;
    const header = new RegExp(`^\\s*\\[\\s*mcp_servers\\s*\\.\\s*${name}\\s*\\]`);
    this.start = this.lines.findIndex((l) => header.test(l));
    this.header = this.start === -1 ? {} : { line: this.start + 1, column: 1 };
    this.inner = this.start === -1 ? "" : this.lines[this.start]!.trim().replace(/^\[\s*|\s*\].*$/g, "");
  }

  key(key: string): Spot {
    return this.find(new RegExp(`^\\s*${escape(key)}\\s*=`));
  }

  /** `[mcp_servers.<name>.tools.<tool>]`, or a line naming the tool under `tools`. */
  tool(tool: string): Spot {
    return this.find(new RegExp(`(?:^|[.\\s{"'])${escape(tool)}(?:["'\\]\\s.=])`));
  }

  private find(pattern: RegExp): Spot {
    if (this.start === -1) return {};
    for (let i = this.start + 1; i < this.lines.length; i++) {
      const line = this.lines[i]!;
      // The next server's table ends this one's section.
      if (/^\s*\[/.test(line) && !line.trim().startsWith(`[${this.inner}.`)) break;
      if (pattern.test(line)) return { line: i + 1, column: line.search(/\S/) + 1 };
    }
    return {};
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
