/**
 * Tab completion for the console, as a pure function of the line and what the directory offers. Spec: `.set`
 * offers `mcp_tools.<server>` for every configured server and alias.
 */

export interface CompletionContext {
  servers: readonly string[];
  aliases: readonly string[];
  roles: readonly string[];
  agents: readonly string[];
  sessions: readonly string[];
  skills: readonly string[];
  loadedSkills: readonly string[];
  /** Node ids of the active graph agent. */
  nodes: readonly string[];
}

export const CONSOLE_COMMANDS = [
  ".info",
  ".list",
  ".set",
  ".mcp",
  ".role",
  ".agent",
  ".session",
  ".skill",
  ".node",
  ".help",
  ".exit",
] as const;

/** What may follow the words typed so far (all but the one being completed). */
function candidates(words: readonly string[], ctx: CompletionContext): readonly string[] {
  const [command, first] = words;
  if (words.length === 0) return CONSOLE_COMMANDS;
  const serversAndAliases = [...ctx.servers, ...ctx.aliases];
  if (words.length === 1) {
    switch (command) {
      case ".info":
        return ["mcp-server", "tools"];
      case ".list":
        return ["mcp-servers"];
      case ".set":
        return ["mcp_tools", ...serversAndAliases.map((s) => `mcp_tools.${s}`)];
      case ".mcp":
        return ["enable", "disable"];
      case ".role":
        return ctx.roles;
      case ".agent":
        return ctx.agents;
      case ".session":
        return ctx.sessions;
      case ".skill":
        return ["load", "unload"];
      case ".node":
        return ctx.nodes;
      default:
        return [];
    }
  }
  if (words.length === 2) {
    if (command === ".info" && first === "mcp-server") return ctx.servers;
    if (command === ".mcp" && (first === "enable" || first === "disable")) return serversAndAliases;
    if (command === ".skill" && first === "load")
      return ctx.skills.filter((s) => !ctx.loadedSkills.includes(s));
    if (command === ".skill" && first === "unload") return ctx.loadedSkills;
    if (command === ".set" && first !== undefined && first.startsWith("mcp_tools")) return ["null"];
  }
  return [];
}

/** readline's completer contract: the matching completions and the part of the line they complete. */
export function completeLine(line: string, ctx: CompletionContext): [string[], string] {
  const endsWithSpace = /\s$/.test(line);
  const words = line.trim() === "" ? [] : line.trim().split(/\s+/);
  const current = endsWithSpace || words.length === 0 ? "" : words.pop()!;
  const hits = [...new Set(candidates(words, ctx))].filter((c) => c.startsWith(current));
  return [hits, current];
}
