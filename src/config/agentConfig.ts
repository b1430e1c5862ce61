import type { Diagnostic } from "../engine/model/diagnostics.js";
import { appendAll } from "../engine/model/diagnostics.js";
import { parseServerSelection, parseToolsMap } from "./patternList.js";

import { describeKind, entryOf, parseYamlSource, unknownKeyWarnings } from "./sourceTree.js";
import type { AgentConfigFile } from "../engine/model/configDir.js";

export const AGENT_FIELDS = ["mcp_servers", "mcp_tools", "name", "description"] as const;

/** Parses an agent's config.yaml. Pure. */
export function parseAgentConfig(
  name: string,
  file: string,
  text: string,
): { agent: AgentConfigFile; diagnostics: Diagnostic[] } {
  const parsed = parseYamlSource(file, text);
  const diagnostics = [...parsed.diagnostics];
  const agent: AgentConfigFile = { kind: "agent", name, file, mcpServers: null, mcpTools: null };
  const root = parsed.root;
  if (root === null) return { agent, diagnostics };
  if (root.kind !== "map") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `the configuration of agent '${name}' must be a map of settings, but this is ${describeKind(root)}`,
      ...root.at,
    });
    return { agent, diagnostics };
  }
  const fileKind = `agents/${name}/config.yaml`;
  appendAll(diagnostics, unknownKeyWarnings(root, AGENT_FIELDS, fileKind));
  const servers = entryOf(root, "mcp_servers");
  if (servers !== undefined) {
    agent.mcpServers = parseServerSelection(
      servers.value,
      { commaString: false, field: "mcp_servers", fileKind },
      diagnostics,
    );
  }
  const tools = entryOf(root, "mcp_tools");
  if (tools !== undefined) {
    agent.mcpTools = parseToolsMap(
      tools.value,
      { commaString: false, nullBlocksAll: false, fileKind },
      diagnostics,
    );
  }
  return { agent, diagnostics };
}
