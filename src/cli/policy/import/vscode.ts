import { describeKind, entryOf, parseFrontMatter } from "../../../config/sourceTree.js";
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
import { appendAll } from "../../../engine/model/diagnostics.js";
import { asMap, readJsonc, spotOf, stringList, type StringItem } from "./read.js";

/**
 * `--from vscode`: VS Code's per-agent tool lists (notes/clients.md §4). mcp.json has no per-tool field
 * (the Configure Tools toggles are stored elsewhere), so the lists come from either
 *
 *   - a custom agent or prompt file (`*.agent.md`, `*.chatmode.md`, `*.prompt.md`): front matter
 *     `tools: [...]`, the only tools the agent is offered; or
 *   - a tool sets file (`*.toolsets.jsonc`): `{ "<set>": { "tools": [...] } }`; the import allows what
 *     any set of the file allows.
 *
 * Entries are allow-only. `<server>/*` is every tool of the server (documented); `<server>/<tool>` is
 * taken as that one tool: the notes show the server form and say tools are named, not the exact spelling
 * of one MCP tool, so the docs say this form is assumed. Other entries (built-in tools such as
 * `codebase`, tool set names, other servers) are counted in the summary and ignored.
 */
export function importVscode(file: string, text: string, requested?: string): ImportOutcome {
  const markdown = /\.md$/i.test(file) || /^\uFEFF?\s*---[ \t]*\r?\n/.test(text);
  const { items, notes } = markdown ? agentTools(file, text) : toolSetTools(file, text);
  const found = [...new Set(items.map((i) => serverOf(i.value)).filter((s) => s !== undefined))];
  const server = chooseServer(found, requested);

  const report: ReportItem[] = [];
  const ignored: string[] = [];
  const allow: ImportedEntry[] = [];
  let everything = false;
  for (const item of items) {
    const from = `"${item.value}"${lineNote(item)}`;
    if (item.value === `${server}/*`) {
      everything = true;
    } else if (item.value.startsWith(`${server}/`)) {
      const tool = item.value.slice(server.length + 1);
      if (starredName(tool))
        report.push({ line: item.line, column: item.column, item: `"${item.value}"`, why: STARRED_WHY });
      else if (!allow.some((e) => e.pattern === tool)) allow.push({ pattern: tool, from });
    } else {
      ignored.push(item.value);
    }
  }
  const policy: ImportedPolicy = {
    format: "vscode",
    file,
    server,
    allow: everything ? null : allow,
    deny: [],
    approvalRequired: [],
    notes: [
      ...notes,
      everything
        ? `"${server}/*" offers every tool of the server: no allowlist.`
        : "A tool the list does not name is not offered: tools.allow lists the named ones.",
    ],
  };
  return { policy, report, ignored };
}

/** The server an entry is about (`memory/read_graph` → `memory`); none for built-in tools and tool sets. */
function serverOf(entry: string): string | undefined {
  const slash = entry.indexOf("/");
  return slash <= 0 ? undefined : entry.slice(0, slash);
}

function agentTools(file: string, text: string): { items: StringItem[]; notes: string[] } {
  const parsed = parseFrontMatter(file, text);
  const error = parsed.diagnostics.find((d) => d.severity === "error");
  if (error !== undefined) throw new ImportInputError(error.message, spotOf(error), error.hint);
  if (parsed.root === null) {
    throw new ImportInputError(
      "the file has no '---' front matter",
      { line: 1, column: 1 },
      "an agent or prompt file starts with a YAML header that has tools: [...]",
    );
  }
  const header = asMap(parsed.root, "the front matter");
  const tools = entryOf(header, "tools");
  if (tools === undefined) {
    throw new ImportInputError(
      "the front matter has no tools list; VS Code then offers every tool, so there is no list to import",
      spotOf(header),
    );
  }
  const node = tools.value;
  // GitHub's agent files also accept one comma-separated string.
  const items =
    node.kind === "scalar" && typeof node.value === "string"
      ? node.value
          .split(",")
          .map((v) => v.trim())
          .filter((v) => v !== "")
          .map((value) => ({ value, ...spotOf(node) }))
      : stringList(node, "tools");
  return { items, notes: ["VS Code offers an agent or prompt file only the tools its front matter lists."] };
}

function toolSetTools(file: string, text: string): { items: StringItem[]; notes: string[] } {
  const root = asMap(readJsonc(file, text), "a tool sets file");
  const items: StringItem[] = [];
  for (const set of root.entries) {
    const body = asMap(set.value, `tool set "${set.key}"`);
    const tools = entryOf(body, "tools");
    if (tools === undefined) {
      throw new ImportInputError(`tool set "${set.key}" has no "tools" list`, spotOf(set.keyAt));
    }
    if (tools.value.kind !== "seq") {
      throw new ImportInputError(
        `"tools" of tool set "${set.key}" must be a list, but this is ${describeKind(tools.value)}`,
        spotOf(tools.value),
      );
    }
    appendAll(items, stringList(tools.value, `"tools" of tool set "${set.key}"`));
  }
  const names = root.entries.map((e) => `"${e.key}"`).join(", ");
  return {
    items,
    notes: [
      `A tool set offers the tools it lists; this policy allows what any set of the file allows (${names}).`,
    ],
  };
}
