import type { Diagnostic } from "../engine/model/diagnostics.js";
import { appendAll } from "../engine/model/diagnostics.js";
import { parseServerSelection, parseToolsMap } from "./patternList.js";
import type { NameRef } from "../engine/model/patternLists.js";
import type { SourceRef, SourceNode } from "../engine/model/source.js";
import { describeKind, entryOf, parseYamlSource, unknownKeyWarnings } from "./sourceTree.js";
import type { GraphNode, GraphAgentFile } from "../engine/model/configDir.js";

export const GRAPH_FIELDS = ["mcp_servers", "mcp_tools", "nodes", "name", "description"] as const;
export const GRAPH_NODE_FIELDS = ["type", "prompt", "tools", "mcp_tools", "description"] as const;

function parseNodeTools(
  node: SourceNode,
  id: string,
  diagnostics: Diagnostic[],
): { tools: string[]; toolServers: NameRef[] } {
  const tools: string[] = [];
  const toolServers: NameRef[] = [];
  if (node.kind !== "seq") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `'tools' of node '${id}' must be a YAML list, but this is ${describeKind(node)}`,
      ...node.at,
    });
    return { tools, toolServers };
  }
  for (const item of node.items) {
    if (item.kind !== "scalar" || typeof item.value !== "string") {
      diagnostics.push({
        severity: "error",
        code: "E_FIELD_TYPE",
        message: `'tools' of node '${id}' must hold only strings, but this is ${describeKind(item)}`,
        ...item.at,
      });
      continue;
    }
    tools.push(item.value);
    if (item.value.startsWith("mcp:")) toolServers.push({ name: item.value.slice(4), at: item.at });
  }
  return { tools, toolServers };
}

function parseNode(
  id: string,
  at: SourceRef,
  node: SourceNode,
  fileKind: string,
  diagnostics: Diagnostic[],
): GraphNode | null {
  if (node.kind !== "map") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `node '${id}' must be a map, but this is ${describeKind(node)}`,
      ...node.at,
    });
    return null;
  }
  appendAll(diagnostics, unknownKeyWarnings(node, GRAPH_NODE_FIELDS, `node '${id}' of ${fileKind}`));
  const out: GraphNode = {
    id,
    at,
    type: null,
    tools: null,
    toolServers: [],
    mcpTools: null,
    mcpToolsAt: null,
  };
  const type = entryOf(node, "type");
  if (type === undefined || type.value.kind !== "scalar" || typeof type.value.value !== "string") {
    diagnostics.push({
      severity: "error",
      code: "E_GRAPH_NODE",
      message: `node '${id}' needs a 'type' (e.g. type: llm)`,
      ...(type === undefined ? at : type.value.at),
    });
  } else {
    out.type = type.value.value;
  }
  const tools = entryOf(node, "tools");
  if (tools !== undefined) {
    const parsed = parseNodeTools(tools.value, id, diagnostics);
    out.tools = parsed.tools;
    out.toolServers = parsed.toolServers;
  }
  const mcpTools = entryOf(node, "mcp_tools");
  if (mcpTools !== undefined) {
    out.mcpToolsAt = mcpTools.keyAt;
    out.mcpTools = parseToolsMap(
      mcpTools.value,
      { commaString: false, nullBlocksAll: false, fileKind },
      diagnostics,
    );
    if (out.type !== null && out.type !== "llm") {
      diagnostics.push({
        severity: "error",
        code: "E_GRAPH_NODE",
        message: `only llm nodes accept 'mcp_tools', but node '${id}' has type '${out.type}'`,
        ...mcpTools.keyAt,
      });
    }
  }
  return out;
}

/** Parses an agent's graph.yaml. Pure. The check against the graph's servers needs aliases: see configDirCheck. */
export function parseGraphFile(
  name: string,
  file: string,
  text: string,
): { graph: GraphAgentFile; diagnostics: Diagnostic[] } {
  const parsed = parseYamlSource(file, text);
  const diagnostics = [...parsed.diagnostics];
  const graph: GraphAgentFile = { kind: "graph", name, file, mcpServers: null, mcpTools: null, nodes: [] };
  const root = parsed.root;
  if (root === null) return { graph, diagnostics };
  if (root.kind !== "map") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `graph '${name}' must be a map, but this is ${describeKind(root)}`,
      ...root.at,
    });
    return { graph, diagnostics };
  }
  const fileKind = `agents/${name}/graph.yaml`;
  appendAll(diagnostics, unknownKeyWarnings(root, GRAPH_FIELDS, fileKind));
  const servers = entryOf(root, "mcp_servers");
  if (servers !== undefined) {
    graph.mcpServers = parseServerSelection(
      servers.value,
      { commaString: false, field: "mcp_servers", fileKind },
      diagnostics,
    );
  }
  const tools = entryOf(root, "mcp_tools");
  if (tools !== undefined) {
    graph.mcpTools = parseToolsMap(
      tools.value,
      { commaString: false, nullBlocksAll: false, fileKind },
      diagnostics,
    );
  }
  const nodes = entryOf(root, "nodes");
  if (nodes !== undefined) {
    if (nodes.value.kind === "map") {
      for (const e of nodes.value.entries) {
        const node = parseNode(e.key, e.keyAt, e.value, fileKind, diagnostics);
        if (node !== null) graph.nodes.push(node);
      }
    } else if (!(nodes.value.kind === "scalar" && nodes.value.value === null)) {
      diagnostics.push({
        severity: "error",
        code: "E_FIELD_TYPE",
        message: `'nodes' must be a map of node id to node, but this is ${describeKind(nodes.value)}`,
        ...nodes.value.at,
      });
    }
  }
  return { graph, diagnostics };
}
