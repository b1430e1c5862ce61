import type { ToolgateCode } from "../engine/model/codes.js";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseAgentConfig } from "./agentConfig.js";
import { checkAgent, checkGlobalConfig, checkRole, checkSession, checkSkill } from "./configDirCheck.js";
import type { AgentFile, ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import { emptyGlobalConfig, parseConfigYaml } from "./configYaml.js";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import { appendAll } from "../engine/model/diagnostics.js";
import { parseGraphFile } from "./graphFile.js";
import { parseMcpJson } from "./mcpJson.js";
import { parseRoleFile } from "./roleFile.js";
import { newSession, parseSessionFile } from "./sessionFile.js";
import { parseSkillFile } from "./skillFile.js";

/**
 * The thin I/O layer over the configuration directory: it reads files and hands their text to the pure
 * parsers. Missing files become diagnostics, never exceptions, so a command can report every problem at once.
 */

export interface LoadResult {
  config: ConfigDir;
  diagnostics: Diagnostic[];
}

/** `--config-dir`, else `$TOOLGATE_CONFIG_DIR`, else `~/.config/toolgate` (docs/design.md, our choices). */
export function resolveConfigDirPath(flag: string | undefined, env: NodeJS.ProcessEnv, home: string): string {
  if (flag !== undefined && flag !== "") return flag;
  const fromEnv = env["TOOLGATE_CONFIG_DIR"];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  return join(home, ".config", "toolgate");
}

/** Role, agent, session and skill names become file names: no separators, no `..`, no leading dot. */
export function entityNameProblem(kind: string, name: string): string | null {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..")) {
    return `${kind} name '${name}' must use only letters, digits, '.', '_' and '-' and start with a letter or digit`;
  }
  return null;
}

export function roleFilePath(dir: string, name: string): string {
  return join(dir, "roles", `${name}.md`);
}
export function agentDirPath(dir: string, name: string): string {
  return join(dir, "agents", name);
}
export function sessionFilePath(dir: string, name: string): string {
  return join(dir, "sessions", `${name}.yaml`);
}
export function skillFilePath(dir: string, name: string): string {
  return join(dir, "skills", name, "SKILL.md");
}

function fileProblem(code: ToolgateCode, message: string, file: string): Diagnostic {
  return { severity: "error", code, message, file, line: 0, column: 0, path: "" };
}

/** The file's text, `null` when it does not exist; other read failures are diagnostics. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function readText(file: string, diagnostics: Diagnostic[]): string | null {
  try {
    // A byte-order mark is not part of the text (editors on Windows write one).
    return readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    diagnostics.push(fileProblem("E_CONFIG_READ", `cannot read the file: ${(err as Error).message}`, file));
    return null;
  }
}

function badName(kind: string, name: string, file: string): Diagnostic[] {
  const problem = entityNameProblem(kind, name);
  return problem === null ? [] : [fileProblem("E_NAME", problem, file)];
}

/** Loads `mcp.json` and `config.yaml`, then every selected role, agent, session and skill, then checks the selection. */
export function loadConfigDir(
  dir: string,
  selection: ContextSelection,
  /** `newSessions`: a selected session without a file starts empty (the console); else it is an error. */
  options: { newSessions?: boolean } = {},
): LoadResult {
  const diagnostics: Diagnostic[] = [];
  const mcpFile = join(dir, "mcp.json");
  if (!isDirectory(dir)) {
    diagnostics.push(
      fileProblem(
        "E_CONFIG_NOT_FOUND",
        `no configuration directory ${dir}: ${existsSync(dir) ? "it is not a directory" : "no such directory"} (hint: create it with an mcp.json, or point --config-dir or $TOOLGATE_CONFIG_DIR at one)`,
        dir,
      ),
    );
    const config: ConfigDir = {
      dir,
      mcp: { file: mcpFile, servers: [] },
      global: emptyGlobalConfig(),
      roles: new Map(),
      agents: new Map(),
      sessions: new Map(),
      skills: new Map(),
    };
    return { config, diagnostics };
  }
  const mcpText = readText(mcpFile, diagnostics);
  let mcp = { file: mcpFile, servers: [] } as ConfigDir["mcp"];
  if (mcpText === null) {
    if (!diagnostics.some((d) => d.file === mcpFile)) {
      diagnostics.push(
        fileProblem("E_CONFIG_NOT_FOUND", `no mcp.json in the configuration directory ${dir}`, mcpFile),
      );
    }
  } else {
    const parsed = parseMcpJson(mcpFile, mcpText);
    mcp = parsed.mcp;
    appendAll(diagnostics, parsed.diagnostics);
  }
  const configFile = join(dir, "config.yaml");
  const configText = readText(configFile, diagnostics);
  let global = emptyGlobalConfig();
  if (configText !== null) {
    const parsed = parseConfigYaml(configFile, configText);
    global = parsed.config;
    appendAll(diagnostics, parsed.diagnostics);
  }
  let config: ConfigDir = {
    dir,
    mcp,
    global,
    roles: new Map(),
    agents: new Map(),
    sessions: new Map(),
    skills: new Map(),
  };
  appendAll(diagnostics, checkGlobalConfig(config));

  const add = (r: LoadResult): void => {
    config = r.config;
    appendAll(diagnostics, r.diagnostics);
  };
  if (selection.role !== undefined) add(loadRole(config, selection.role));
  if (selection.agent !== undefined) add(loadAgent(config, selection.agent));
  if (selection.session !== undefined) {
    add(loadSession(config, selection.session, { mustExist: options.newSessions !== true }));
  }
  for (const skill of new Set(selection.skills)) add(loadSkill(config, skill));
  appendAll(diagnostics, selectionProblems(config, selection));
  return { config, diagnostics: sortDiagnostics(diagnostics) };
}

/** Files in the order they were first reported, findings within a file by position. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const fileOrder = new Map<string, number>();
  for (const d of diagnostics) if (!fileOrder.has(d.file)) fileOrder.set(d.file, fileOrder.size);
  return diagnostics
    .map((d, i) => ({ d, i }))
    .sort(
      (a, b) =>
        fileOrder.get(a.d.file)! - fileOrder.get(b.d.file)! ||
        a.d.line - b.d.line ||
        a.d.column - b.d.column ||
        a.i - b.i,
    )
    .map(({ d }) => d);
}

/** Adds `roles/<name>.md` to the loaded configuration (the console calls this when switching roles). */
export function loadRole(config: ConfigDir, name: string): LoadResult {
  const file = roleFilePath(config.dir, name);
  const named = badName("role", name, file);
  if (named.length > 0) return { config, diagnostics: named };
  const diagnostics: Diagnostic[] = [];
  const text = readText(file, diagnostics);
  if (text === null) {
    if (diagnostics.length === 0)
      diagnostics.push(fileProblem("E_CONFIG_NOT_FOUND", `no role '${name}' (expected ${file})`, file));
    return { config, diagnostics };
  }
  const parsed = parseRoleFile(name, file, text);
  const roles = new Map(config.roles).set(name, parsed.role);
  const next = { ...config, roles };
  return {
    config: next,
    diagnostics: sortDiagnostics([...parsed.diagnostics, ...checkRole(next, parsed.role)]),
  };
}

/** Adds `agents/<name>/` (graph.yaml makes it a graph agent; otherwise config.yaml). */
export function loadAgent(config: ConfigDir, name: string): LoadResult {
  const agentDir = agentDirPath(config.dir, name);
  const named = badName("agent", name, agentDir);
  if (named.length > 0) return { config, diagnostics: named };
  const diagnostics: Diagnostic[] = [];
  const graphFile = join(agentDir, "graph.yaml");
  const configFile = join(agentDir, "config.yaml");
  const graphText = readText(graphFile, diagnostics);
  const configText = readText(configFile, diagnostics);
  let agent: AgentFile;
  if (graphText !== null) {
    const parsed = parseGraphFile(name, graphFile, graphText);
    agent = parsed.graph;
    appendAll(diagnostics, parsed.diagnostics);
    if (configText !== null) {
      const side = parseAgentConfig(name, configFile, configText);
      appendAll(diagnostics, side.diagnostics);
      if (side.agent.mcpServers !== null || side.agent.mcpTools !== null) {
        diagnostics.push(
          fileProblem(
            "E_GRAPH_AGENT_CONFIG",
            `agent '${name}' is a graph agent: its MCP servers and filters come from graph.yaml; ` +
              `remove mcp_servers and mcp_tools from config.yaml`,
            configFile,
          ),
        );
      }
    }
  } else if (configText !== null) {
    const parsed = parseAgentConfig(name, configFile, configText);
    agent = parsed.agent;
    appendAll(diagnostics, parsed.diagnostics);
  } else {
    if (diagnostics.length === 0) {
      diagnostics.push(
        fileProblem(
          "E_CONFIG_NOT_FOUND",
          `no agent '${name}' (expected ${configFile} or ${graphFile})`,
          agentDir,
        ),
      );
    }
    return { config, diagnostics };
  }
  const agents = new Map(config.agents).set(name, agent);
  const next = { ...config, agents };
  return { config: next, diagnostics: sortDiagnostics([...diagnostics, ...checkAgent(next, agent)]) };
}

/**
 * Adds `sessions/<name>.yaml`. A session without a file is a new, empty session when the console starts one;
 * named by a flag (`mustExist`) it is an error, like a mistyped role: a typo must not run with no layer.
 */
export function loadSession(
  config: ConfigDir,
  name: string,
  options: { mustExist?: boolean } = {},
): LoadResult {
  const file = sessionFilePath(config.dir, name);
  const named = badName("session", name, file);
  if (named.length > 0) return { config, diagnostics: named };
  const diagnostics: Diagnostic[] = [];
  const text = readText(file, diagnostics);
  if (diagnostics.length > 0) return { config, diagnostics };
  if (text === null && options.mustExist === true) {
    const problem = fileProblem("E_CONFIG_NOT_FOUND", `no session '${name}' (expected ${file})`, file);
    problem.hint =
      "start it in `toolgate console` (`.session <name>`, then `.set mcp_tools.<server> …`), or check the name";
    return { config, diagnostics: [problem] };
  }
  const parsed =
    text === null ? { session: newSession(name, file), diagnostics: [] } : parseSessionFile(name, file, text);
  const sessions = new Map(config.sessions).set(name, parsed.session);
  const next = { ...config, sessions };
  return {
    config: next,
    diagnostics: sortDiagnostics([...parsed.diagnostics, ...checkSession(next, parsed.session)]),
  };
}

/** Adds `skills/<name>/SKILL.md`. */
export function loadSkill(config: ConfigDir, name: string): LoadResult {
  const file = skillFilePath(config.dir, name);
  const named = badName("skill", name, file);
  if (named.length > 0) return { config, diagnostics: named };
  const diagnostics: Diagnostic[] = [];
  const text = readText(file, diagnostics);
  if (text === null) {
    if (diagnostics.length === 0)
      diagnostics.push(fileProblem("E_CONFIG_NOT_FOUND", `no skill '${name}' (expected ${file})`, file));
    return { config, diagnostics };
  }
  const parsed = parseSkillFile(name, file, text);
  const skills = new Map(config.skills).set(name, parsed.skill);
  const next = { ...config, skills };
  return {
    config: next,
    diagnostics: sortDiagnostics([...parsed.diagnostics, ...checkSkill(next, parsed.skill)]),
  };
}

/**
 * Problems with the selection itself once its files are loaded: a node without a graph agent, an unknown node.
 * Pure. (Missing files are reported by the loaders.)
 */
export function selectionProblems(config: ConfigDir, selection: ContextSelection): Diagnostic[] {
  if (selection.node === undefined) return [];
  const agent = selection.agent === undefined ? undefined : config.agents.get(selection.agent);
  if (selection.agent === undefined) {
    return [fileProblem("E_SELECTION", `node '${selection.node}' needs a graph agent (--agent)`, config.dir)];
  }
  if (agent === undefined) return [];
  if (agent.kind !== "graph") {
    return [
      fileProblem(
        "E_SELECTION",
        `agent '${agent.name}' is not a graph agent, so it has no node '${selection.node}'`,
        agent.file,
      ),
    ];
  }
  if (!agent.nodes.some((n) => n.id === selection.node)) {
    return [
      fileProblem("E_SELECTION", `graph agent '${agent.name}' has no node '${selection.node}'`, agent.file),
    ];
  }
  return [];
}

/** What the directory offers, for the console's completion and switching commands. */
export interface ConfigDirNames {
  roles: string[];
  agents: string[];
  sessions: string[];
  skills: string[];
}

function listNames(dir: string, keep: (entry: string) => string | null): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const name = keep(entry);
    if (name !== null && entityNameProblem("", name) === null) out.push(name);
  }
  return out.sort();
}

export function listConfigDirNames(dir: string): ConfigDirNames {
  const isDir = (p: string): boolean => existsSync(p) && statSync(p).isDirectory();
  return {
    roles: listNames(join(dir, "roles"), (e) => (e.endsWith(".md") ? e.slice(0, -3) : null)),
    agents: listNames(join(dir, "agents"), (e) =>
      existsSync(join(dir, "agents", e, "config.yaml")) || existsSync(join(dir, "agents", e, "graph.yaml"))
        ? e
        : null,
    ),
    sessions: listNames(join(dir, "sessions"), (e) => (e.endsWith(".yaml") ? e.slice(0, -5) : null)),
    skills: listNames(join(dir, "skills"), (e) =>
      isDir(join(dir, "skills", e)) && existsSync(join(dir, "skills", e, "SKILL.md")) ? e : null,
    ),
  };
}
