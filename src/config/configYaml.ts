import type { Diagnostic } from "../engine/model/diagnostics.js";
import { appendAll } from "../engine/model/diagnostics.js";
import { parseServerSelection, parseToolsMap } from "./patternList.js";

import type { SourceMap, SourceNode, SourceRef } from "../engine/model/source.js";
import { serverNameProblem } from "./serverName.js";
import { describeKind, entryOf, parseYamlSource, unknownKeyWarnings } from "./sourceTree.js";
import type { GlobalConfig, ServerAlias } from "../engine/model/configDir.js";
import { readStateUrl, STATE_URL_HINT, stateUrlForms } from "../engine/model/stateUrl.js";

export const CONFIG_YAML_FIELDS = [
  "enabled_mcp_servers",
  "mapping_mcp_servers",
  "mcp_tools",
  "policy",
  "tests",
  "approval_keys",
  "state",
] as const;

export function emptyGlobalConfig(): GlobalConfig {
  return {
    file: null,
    enabledMcpServers: null,
    aliases: [],
    mcpTools: null,
    policy: null,
    tests: null,
    approvalKeys: [],
    state: null,
    oauth: null,
  };
}

function parseAliases(node: SourceNode, diagnostics: Diagnostic[]): ServerAlias[] {
  if (node.kind === "scalar" && node.value === null) return [];
  if (node.kind !== "map") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `'mapping_mcp_servers' must be a map of alias to server names, but this is ${describeKind(node)}`,
      ...node.at,
    });
    return [];
  }
  const out: ServerAlias[] = [];
  for (const e of node.entries) {
    const problem = serverNameProblem(e.key);
    if (problem !== null) {
      diagnostics.push({
        severity: "error",
        code: "E_SERVER_NAME",
        message: `alias: ${problem}`,
        ...e.keyAt,
      });
      continue;
    }
    const selection = parseServerSelection(
      e.value,
      { commaString: true, field: `mapping_mcp_servers.${e.key}`, fileKind: "config.yaml" },
      diagnostics,
    );
    if (selection?.all) {
      diagnostics.push({
        severity: "error",
        code: "E_FIELD_TYPE",
        message: `alias '${e.key}' cannot map to 'all'; list the servers it stands for`,
        ...e.value.at,
      });
      continue;
    }
    out.push({ alias: e.key, at: e.keyAt, servers: selection === null ? [] : selection.names });
  }
  return out;
}

/** Parses the text of `config.yaml`. Pure. */
export function parseConfigYaml(
  file: string,
  text: string,
): { config: GlobalConfig; diagnostics: Diagnostic[] } {
  const parsed = parseYamlSource(file, text);
  const diagnostics = [...parsed.diagnostics];
  const config: GlobalConfig = { ...emptyGlobalConfig(), file };
  const root = parsed.root;
  if (root === null) return { config, diagnostics };
  if (root.kind !== "map") {
    diagnostics.push({
      severity: "error",
      code: "E_FIELD_TYPE",
      message: `config.yaml must be a map of settings, but this is ${describeKind(root)}`,
      ...root.at,
    });
    return { config, diagnostics };
  }
  appendAll(diagnostics, unknownKeyWarnings(root, CONFIG_YAML_FIELDS, "config.yaml"));
  const enabled = entryOf(root, "enabled_mcp_servers");
  if (enabled !== undefined) {
    config.enabledMcpServers = parseServerSelection(
      enabled.value,
      { commaString: true, field: "enabled_mcp_servers", fileKind: "config.yaml" },
      diagnostics,
    );
  }
  const aliases = entryOf(root, "mapping_mcp_servers");
  if (aliases !== undefined) config.aliases = parseAliases(aliases.value, diagnostics);
  const tools = entryOf(root, "mcp_tools");
  if (tools !== undefined) {
    config.mcpTools = parseToolsMap(
      tools.value,
      { commaString: true, nullBlocksAll: false, fileKind: "config.yaml" },
      diagnostics,
    );
  }
  config.policy = parsePath(root, "policy", "a policy file", diagnostics);
  config.tests = parsePath(root, "tests", "the policy test file of the start-up self-test", diagnostics);
  const keys = entryOf(root, "approval_keys");
  if (keys !== undefined) config.approvalKeys = parseKeyFiles(keys.value, diagnostics);
  const state = entryOf(root, "state");
  if (state !== undefined) {
    const v = state.value;
    if (v.kind === "scalar" && typeof v.value === "string") {
      const read = readStateUrl(v.value);
      if (!("problem" in read)) config.state = { url: v.value, at: v.at };
      else {
        // The code --state gets for the same URL (state/stateRegistry.ts), here with its file:line.
        diagnostics.push({
          severity: "error",
          code: "E_STATE_URL",
          message: `'state' must be ${stateUrlForms()}, but ${read.problem}`,
          hint: STATE_URL_HINT,
          ...v.at,
        });
      }
    } else if (!(v.kind === "scalar" && v.value === null)) {
      diagnostics.push({
        severity: "error",
        code: "E_FIELD_TYPE",
        message: `'state' must be ${stateUrlForms()}, but this is ${describeKind(v)}`,
        ...v.at,
      });
    }
  }
  const oauth = entryOf(root, "oauth");
  if (oauth !== undefined) config.oauth = parseOAuth(oauth.value, diagnostics);
  return { config, diagnostics };
}

/** `policy:`, `tests:`: a path relative to the configuration directory; `null` (or left out): none. */
function parsePath(
  root: SourceMap,
  key: "policy" | "tests",
  what: string,
  diagnostics: Diagnostic[],
): { path: string; at: SourceRef } | null {
  const v = entryOf(root, key)?.value;
  if (v === undefined || (v.kind === "scalar" && v.value === null)) return null;
  if (v.kind === "scalar" && typeof v.value === "string" && v.value !== "")
    return { path: v.value, at: v.at };
  diagnostics.push({
    severity: "error",
    code: "E_FIELD_TYPE",
    message: `'${key}' must be the path of ${what} (relative to the configuration directory), but this is ${describeKind(v)}`,
    ...v.at,
  });
  return null;
}

/** `oauth: { issuers: [URL…], audience: URL, scopes: [S…] }`; every problem is an error (a security setting). */
function parseOAuth(node: SourceNode, diagnostics: Diagnostic[]): GlobalConfig["oauth"] {
  const problem = (message: string, at: SourceRef): null => {
    diagnostics.push({ severity: "error", code: "E_FIELD_TYPE", message, ...at });
    return null;
  };
  if (node.kind !== "map")
    return problem(
      `'oauth' must be a map (issuers, audience, scopes), but this is ${describeKind(node)}`,
      node.at,
    );
  const out = {
    issuers: [] as string[],
    audience: null as string | null,
    scopes: [] as string[],
    at: node.at,
  };
  const strings = (v: SourceNode, field: string): string[] => {
    const items = v.kind === "seq" ? v.items : [v];
    const values = items.map((i) =>
      i.kind === "scalar" && typeof i.value === "string" && i.value !== "" ? i.value : null,
    );
    if (values.some((x) => x === null))
      problem(`'oauth.${field}' must be a string or a list of strings`, v.at);
    return values.filter((x): x is string => x !== null);
  };
  for (const e of node.entries) {
    if (e.key === "issuers") out.issuers = strings(e.value, "issuers");
    else if (e.key === "scopes") out.scopes = strings(e.value, "scopes");
    else if (e.key === "audience") out.audience = strings(e.value, "audience")[0] ?? null;
    else problem(`unknown field 'oauth.${e.key}' (known: issuers, audience, scopes)`, e.keyAt);
  }
  for (const url of [...out.issuers, ...(out.audience === null ? [] : [out.audience])]) {
    if (!/^https?:\/\//.test(url) || !URL.canParse(url))
      problem(`'${url}' in 'oauth' is not an http(s) URL`, node.at);
  }
  return out;
}

/** `approval_keys:` a file name or a list of them. */
function parseKeyFiles(node: SourceNode, diagnostics: Diagnostic[]): { path: string; at: SourceRef }[] {
  const items = node.kind === "seq" ? node.items : [node];
  const out: { path: string; at: SourceRef }[] = [];
  for (const item of items) {
    if (item.kind === "scalar" && typeof item.value === "string" && item.value !== "") {
      out.push({ path: item.value, at: item.at });
    } else if (!(item.kind === "scalar" && item.value === null && node.kind !== "seq")) {
      diagnostics.push({
        severity: "error",
        code: "E_FIELD_TYPE",
        message: `'approval_keys' lists Ed25519 public key files (PEM, relative to the configuration directory), but this is ${describeKind(item)}`,
        ...item.at,
      });
    }
  }
  return out;
}
