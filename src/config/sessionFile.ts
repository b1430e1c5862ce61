import { isMap } from "yaml";
import { ToolgateError } from "../engine/errors.js";
import { whitelistPatternProblem } from "../engine/patterns/index.js";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import { appendAll } from "../engine/model/diagnostics.js";
import { parseToolsMap } from "./patternList.js";
import type { ToolsMap } from "../engine/model/patternLists.js";
import { describeKind, entryOf, parseYamlSource, unknownKeyWarnings } from "./sourceTree.js";
import { composeYaml } from "./yamlCompose.js";
import type { SessionFile } from "../engine/model/configDir.js";

export const SESSION_FIELDS = ["mcp_tools"] as const;

export function newSession(name: string, file: string): SessionFile {
  return { name, file, exists: false, mcpTools: null };
}

/** Parses a session file. Pure. */
export function parseSessionFile(
  name: string,
  file: string,
  text: string,
): { session: SessionFile; diagnostics: Diagnostic[] } {
  const parsed = parseYamlSource(file, text);
  const diagnostics = [...parsed.diagnostics];
  const session: SessionFile = { name, file, exists: true, mcpTools: null };
  const root = parsed.root;
  if (root === null) return { session, diagnostics };
  if (root.kind !== "map") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `session '${name}' must be a map of settings, but this is ${describeKind(root)}`,
      ...root.at,
    });
    return { session, diagnostics };
  }
  const fileKind = `sessions/${name}.yaml`;
  appendAll(diagnostics, unknownKeyWarnings(root, SESSION_FIELDS, fileKind));
  const tools = entryOf(root, "mcp_tools");
  if (tools !== undefined) {
    session.mcpTools = parseToolsMap(
      tools.value,
      { commaString: true, nullBlocksAll: false, fileKind },
      diagnostics,
    );
  }
  return { session, diagnostics };
}

/**
 * The text of a session file holding `map`, keeping everything else of `previousText` (other keys, comments).
 * An empty or null map removes `mcp_tools`. Pure.
 *
 * Throws `E_SESSION_WRITE` when the previous file cannot be parsed, or when the map holds a non-string pattern
 * that would turn into a valid pattern once written back as text (which would widen what it allows).
 */
export function serializeSessionFile(previousText: string | null, map: ToolsMap | null): string {
  const composed = composeYaml(previousText ?? "");
  if (!composed.ok) {
    throw new ToolgateError("E_SESSION_WRITE", "cannot update the session file: it nests too deep");
  }
  const doc = composed.doc;
  if (doc.errors.length > 0) {
    throw new ToolgateError(
      "E_SESSION_WRITE",
      `cannot update the session file: ${doc.errors[0]!.message.split("\n")[0]}`,
    );
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new ToolgateError("E_SESSION_WRITE", "cannot update the session file: it is not a map of settings");
  }
  if (map === null || map.length === 0) {
    if (doc.contents !== null) doc.delete("mcp_tools");
  } else {
    const plain: Record<string, string[]> = {};
    for (const entry of map) {
      for (const p of entry.patterns) {
        if (p.problem !== null && whitelistPatternProblem(p.source) === null) {
          const where = p.at === null ? "" : ` (${p.at.file}:${p.at.line})`;
          throw new ToolgateError(
            "E_SESSION_WRITE",
            `cannot update the session file: the pattern ${p.source}${where} is not a string; fix it in the file first`,
          );
        }
      }
      Object.defineProperty(plain, entry.key, {
        value: entry.patterns.map((p) => p.source),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    const node = doc.createNode(plain);
    for (const pair of node.items) {
      (pair.value as { flow?: boolean }).flow = true;
    }
    if (doc.contents === null) doc.contents = doc.createNode({}) as never;
    doc.set("mcp_tools", node);
  }
  const text =
    doc.contents === null || (isMap(doc.contents) && doc.contents.items.length === 0)
      ? "{}\n"
      : doc.toString();
  checkWritten(text, map);
  return text;
}

/** The map as names and pattern texts, to compare what was set with what the file would say. */
function mapText(map: ToolsMap | null): string {
  return JSON.stringify((map ?? []).map((e) => [e.key, e.patterns.map((p) => p.source)]));
}

/**
 * Reads the new text back as the loader will, so a file is never written that says something else than was
 * set or does not load: e.g. `mcp_tools` merged from an anchored map (`<<: *base`), which a written key
 * would override (E_MERGE_OVERRIDE) and a removed one would leave in force.
 */
function checkWritten(text: string, map: ToolsMap | null): void {
  const back = parseSessionFile("session", "the session file", text);
  const problem = back.diagnostics.find((d) => d.severity === "error");
  if (problem === undefined && mapText(back.session.mcpTools) === mapText(map)) return;
  throw new ToolgateError(
    "E_SESSION_WRITE",
    problem === undefined
      ? "cannot update the session file: its mcp_tools would not say what was set (it comes from a merged map, <<)"
      : `cannot update the session file: it would not load (${problem.code}: ${problem.message})`,
    "edit the session file by hand, or give mcp_tools in it directly rather than through <<",
  );
}
