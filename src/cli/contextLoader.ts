import { homedir } from "node:os";
import { logEntry } from "./log/stderrLog.js";
import { loadConfigDir, resolveConfigDirPath } from "../config/configDir.js";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import { hasErrors } from "../engine/model/diagnostics.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import { compilePolicy } from "../engine/policy/compile.js";
import { gatewayNameDiagnostics } from "../config/policyGatewayNames.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import {
  policyLocation,
  printDiagnostics,
  selectionOf,
  type ContextFlags,
  type PolicyLocation,
} from "./contextOptions.js";

// Kept apart from the flag helpers in contextOptions.ts: loading compiles the policy (Ajv), which
// `toolgate wrap` defers until its server is running.

/** Loads and compiles the policy at `location` (diagnostics printed); "unusable" on errors (fail closed). */
export function loadActivePolicy(location: PolicyLocation | null): ActivePolicy | null | "unusable" {
  if (location === null) return null;
  const { policy, diagnostics } = loadPolicyFile(location.path);
  printDiagnostics(diagnostics);
  if (policy === null) {
    const origin = location.from === "flag" ? "--policy" : "config.yaml's policy:";
    const message = `the policy '${location.shown}' (${origin}) cannot be used`;
    logEntry({ level: "error", code: "E_START_REFUSED", message }, `toolgate: ${message}\n`);
    return "unusable";
  }
  return { compiled: compilePolicy(policy), shownPath: location.shown };
}

export interface LoadedContext {
  dir: string;
  config: ConfigDir;
  selection: ContextSelection;
  policy: ActivePolicy | null;
}

/**
 * Resolves and loads the directory with the selection, then the policy. Every diagnostic goes to stderr with
 * file and line; null when anything has an error (the caller exits 2).
 */
export function loadContext(
  flags: ContextFlags,
  withPolicy = true,
  options: { newSessions?: boolean } = {},
): LoadedContext | null {
  const dir = resolveConfigDirPath(flags.configDir, process.env, homedir());
  const selection = selectionOf(flags);
  const { config, diagnostics } = loadConfigDir(dir, selection, options);
  printDiagnostics(diagnostics);
  if (hasErrors(diagnostics)) {
    const message = `the configuration in ${dir} has errors (see above)`;
    logEntry({ level: "error", code: "E_START_REFUSED", message }, `toolgate: ${message}\n`);
    return null;
  }
  const policy = withPolicy ? loadActivePolicy(policyLocation(config, flags.policy)) : null;
  if (policy === "unusable") return null;
  if (policy !== null) {
    printDiagnostics(gatewayNameDiagnostics(policy.compiled.policy, serverNames(config)));
  }
  return { dir, config, selection, policy };
}

/** The mcp.json names of a configuration: what serve prefixes its tools with. */
export function serverNames(config: ConfigDir): string[] {
  return config.mcp.servers.map((s) => s.name);
}
