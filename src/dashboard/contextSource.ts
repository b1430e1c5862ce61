import { listConfigDirNames, loadConfigDir, type ConfigDirNames } from "../config/configDir.js";
import { gatewayNameDiagnostics } from "../config/policyGatewayNames.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import { hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import { compilePolicy } from "../engine/policy/compile.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";

/**
 * The context a matrix view is drawn in, read from the page's query (role, agent, session, skills, node) and
 * loaded from the directory afresh for each view, so an edited file shows at the next reload. Only names the
 * directory defines are accepted: a query value never becomes a path of its own. Loading is the loader
 * `info` uses (loadConfigDir, then the policy file, compiled), with the diagnostics kept for the page instead
 * of printed; any error stops the view (fail closed, as `info` exits 2).
 */

/** Where the policy is (the command's `--policy`, else config.yaml's `policy:`), as the CLI resolves it. */
export type LocatePolicy = (config: ConfigDir) => { path: string; shown: string } | null;

export interface PickedContext {
  selection: ContextSelection;
  /** Query values naming nothing the directory defines. */
  unknown: string[];
}

export function directoryNames(dir: string): ConfigDirNames {
  return listConfigDirNames(dir);
}

/** The selection a query asks for, keeping only what `names` lists (skills in the order given, once each). */
export function pickContext(query: URLSearchParams, names: ConfigDirNames): PickedContext {
  const unknown: string[] = [];
  const selection: ContextSelection = { skills: [] };
  const one = (key: "role" | "agent" | "session", known: readonly string[]): void => {
    const value = query.get(key);
    if (value === null || value === "") return;
    if (known.includes(value)) selection[key] = value;
    else unknown.push(`${key} '${value}'`);
  };
  one("role", names.roles);
  one("agent", names.agents);
  one("session", names.sessions);
  for (const skill of query.getAll("skill")) {
    if (skill === "") continue;
    if (!names.skills.includes(skill)) unknown.push(`skill '${skill}'`);
    else if (!selection.skills.includes(skill)) selection.skills.push(skill);
  }
  // A node is checked once the agent is loaded (selectionProblems): it names no file.
  const node = query.get("node");
  if (node !== null && node !== "") selection.node = node;
  return { selection, unknown };
}

export interface LoadedView {
  config: ConfigDir;
  policy: ActivePolicy | null;
  diagnostics: Diagnostic[];
  /** False when any diagnostic is an error or the policy cannot be used: no verdict is shown. */
  usable: boolean;
}

export function loadView(dir: string, selection: ContextSelection, locatePolicy: LocatePolicy): LoadedView {
  const { config, diagnostics } = loadConfigDir(dir, selection);
  if (hasErrors(diagnostics)) return { config, policy: null, diagnostics, usable: false };
  const location = locatePolicy(config);
  if (location === null) return { config, policy: null, diagnostics, usable: true };
  const loaded = loadPolicyFile(location.path);
  const all = [...diagnostics, ...loaded.diagnostics];
  if (loaded.policy === null) return { config, policy: null, diagnostics: all, usable: false };
  all.push(
    ...gatewayNameDiagnostics(
      loaded.policy,
      config.mcp.servers.map((s) => s.name),
    ),
  );
  const policy = { compiled: compilePolicy(loaded.policy), shownPath: location.shown };
  return { config, policy, diagnostics: all, usable: true };
}

/** The node ids the selected agent offers (a graph agent), for the context form. */
export function nodesOf(config: ConfigDir, selection: ContextSelection): string[] {
  const agent = selection.agent === undefined ? undefined : config.agents.get(selection.agent);
  return agent?.kind === "graph" ? agent.nodes.map((n) => n.id) : [];
}
