import { parseAgentConfig } from "../../../../src/config/agentConfig.js";
import { checkConfigDir } from "../../../../src/config/configDirCheck.js";
import type {
  AgentFile,
  ConfigDir,
  RoleFile,
  SessionFile,
  SkillFile,
} from "../../../../src/engine/model/configDir.js";
import { emptyGlobalConfig, parseConfigYaml } from "../../../../src/config/configYaml.js";
import type { Diagnostic } from "../../../../src/engine/model/diagnostics.js";
import { parseGraphFile } from "../../../../src/config/graphFile.js";
import { parseMcpJson } from "../../../../src/config/mcpJson.js";
import { parseRoleFile } from "../../../../src/config/roleFile.js";
import { parseSessionFile } from "../../../../src/config/sessionFile.js";
import { parseSkillFile } from "../../../../src/config/skillFile.js";

export interface ConfigTexts {
  /** Server name → allowedTools (undefined: no field). Every server is a stdio server. */
  servers: Record<string, string[] | undefined>;
  config?: string;
  roles?: Record<string, string>;
  agents?: Record<string, string>;
  graphs?: Record<string, string>;
  sessions?: Record<string, string>;
  skills?: Record<string, string>;
}

/** An in-memory configuration directory built with the real parsers, failing on any error. */
export function buildConfig(texts: ConfigTexts): ConfigDir {
  const diagnostics: Diagnostic[] = [];
  const servers: Record<string, object> = {};
  for (const [name, allowed] of Object.entries(texts.servers)) {
    servers[name] = allowed === undefined ? { command: "x" } : { command: "x", allowedTools: allowed };
  }
  const mcp = parseMcpJson("mcp.json", JSON.stringify({ mcpServers: servers }, null, 2));
  diagnostics.push(...mcp.diagnostics);
  let global = emptyGlobalConfig();
  if (texts.config !== undefined) {
    const parsed = parseConfigYaml("config.yaml", texts.config);
    global = parsed.config;
    diagnostics.push(...parsed.diagnostics);
  }
  const roles = new Map<string, RoleFile>();
  for (const [name, text] of Object.entries(texts.roles ?? {})) {
    const r = parseRoleFile(name, `roles/${name}.md`, text);
    roles.set(name, r.role);
    diagnostics.push(...r.diagnostics);
  }
  const agents = new Map<string, AgentFile>();
  for (const [name, text] of Object.entries(texts.agents ?? {})) {
    const r = parseAgentConfig(name, `agents/${name}/config.yaml`, text);
    agents.set(name, r.agent);
    diagnostics.push(...r.diagnostics);
  }
  for (const [name, text] of Object.entries(texts.graphs ?? {})) {
    const r = parseGraphFile(name, `agents/${name}/graph.yaml`, text);
    agents.set(name, r.graph);
    diagnostics.push(...r.diagnostics);
  }
  const sessions = new Map<string, SessionFile>();
  for (const [name, text] of Object.entries(texts.sessions ?? {})) {
    const r = parseSessionFile(name, `sessions/${name}.yaml`, text);
    sessions.set(name, r.session);
    diagnostics.push(...r.diagnostics);
  }
  const skills = new Map<string, SkillFile>();
  for (const [name, text] of Object.entries(texts.skills ?? {})) {
    const r = parseSkillFile(name, `skills/${name}/SKILL.md`, text);
    skills.set(name, r.skill);
    diagnostics.push(...r.diagnostics);
  }
  const config: ConfigDir = { dir: ".", mcp: mcp.mcp, global, roles, agents, sessions, skills };
  diagnostics.push(...checkConfigDir(config));
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) throw new Error(`test configuration has errors: ${JSON.stringify(errors)}`);
  return config;
}

/** Front matter for a role or skill. */
export const fm = (yaml: string): string => `---\n${yaml}\n---\nbody\n`;
