import { homedir } from "node:os";
import type { LogFields } from "../engine/model/logFields.js";
import { isAbsolute, resolve } from "node:path";
import { loadConfigDir, resolveConfigDirPath } from "../config/configDir.js";
import { hasErrors } from "../engine/model/diagnostics.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import type { Policy } from "../engine/model/policy.js";
import { describeTarget } from "../upstream/serverTarget.js";
import type { ToolGate } from "../engine/model/gate.js";
import { resolveLayers } from "../engine/policy/layers.js";
import { serverFilter } from "../engine/policy/serverFilter.js";
import { policyLocation, printDiagnostics, selectionOf, type ContextFlags } from "./contextOptions.js";
import { describeError, errorText } from "./errorReport.js";
import { lookupEnabledServer } from "./serverLookup.js";
import type { PinServer } from "./wrapPinServer.js";
import { selfTestFile, type SelfTestFile } from "./selfTest/selfTestRun.js";

/**
 * `toolgate wrap --config-dir D --server S [--role …]… [-- CMD ARGS…]`: the layers of server S in that context
 * apply in addition to the policy (`--policy`, else config.yaml's `policy:`), through the same server filter as
 * `info` and `serve`. Without a command after `--`, S's own stdio command from mcp.json is run.
 */
export interface WrapConfigFlags extends ContextFlags {
  server?: string;
}

/** What `wrap` runs and how it decides. */
export interface WrapPlan {
  command: string;
  args: string[];
  /** Unset: the wrapper's own environment and working directory. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Called once the server is spawned, so compiling the policy overlaps the server's start-up. */
  createGate(): Promise<ToolGate>;
  /** config.yaml's `approval_keys`, relative to the configuration directory. */
  approvalKeys?: { files: readonly { path: string }[]; dir: string };
  /** The server the policy's tool_pins are bound to (wrapPinServer.ts). */
  pins: PinServer;
  /** The entry's own `startup_timeout`, which wins over --startup-timeout. */
  startupTimeoutMs?: number;
  /** What a reload watches: the policy file, the configuration directory. */
  watch: string[];
  /** The policy as shown (`--policy`, config.yaml's `policy:`). */
  policyShown?: string;
  /** config.yaml's `tests:`: the self-test, unless `--self-test` names another file. */
  tests?: SelfTestFile;
}

/** What a refused plan means, said in its last line: at start nothing runs; at a reload the old policy stays. */
export interface PlanRefusal {
  consequence: string;
  code: string;
}

export const START_REFUSED: PlanRefusal = {
  consequence: "the server was not started",
  code: "E_START_REFUSED",
};

/** True when any flag asks for the configuration directory. */
/** The plan, or null after explaining on stderr why toolgate will not start (exit 2). */
export function planConfigDirWrap(
  command: readonly string[],
  flags: WrapConfigFlags,
  log: (line: string, fields?: LogFields) => void,
  refusal: PlanRefusal = START_REFUSED,
): WrapPlan | null {
  if (flags.server === undefined) {
    log(
      "--config-dir, --role, --agent, --session, --skill and --node need --server <name>: " +
        "the mcp.json server whose filter layers apply",
      { code: "E_USAGE" },
    );
    return null;
  }
  const name = flags.server;
  const dir = resolveConfigDirPath(flags.configDir, process.env, homedir());
  const selection = selectionOf(flags);
  const loaded = loadConfigDir(dir, selection);
  printDiagnostics(loaded.diagnostics);
  if (hasErrors(loaded.diagnostics)) {
    log(`the configuration in ${dir} has errors (see above); ${refusal.consequence}`, {
      code: refusal.code,
    });
    return null;
  }
  const config = loaded.config;
  const found = lookupEnabledServer(config, selection, name);
  if (!found.ok) {
    log(errorText(found.code, found.message, found.hint).trimEnd());
    return null;
  }
  try {
    // The selection is checked before anything is spawned; the gate resolves the layers again later.
    resolveLayers(config, selection, name);
  } catch (error) {
    log(describeError(error).trimEnd());
    return null;
  }

  const location = policyLocation(config, flags.policy);
  let policy: Policy | null = null;
  if (location !== null) {
    const read = loadPolicyFile(location.path);
    printDiagnostics(read.diagnostics);
    if (read.policy === null) {
      log(`policy '${location.shown}' cannot be used; ${refusal.consequence}`, {
        code: refusal.code,
      });
      return null;
    }
    policy = read.policy;
  }
  const shownPath = location?.shown ?? "";
  const createGate = async (): Promise<ToolGate> => {
    // Loaded here, after the server is spawned: Ajv's start-up cost overlaps the server's.
    const { compilePolicy } = await import("../engine/policy/compile.js");
    return serverFilter(
      config,
      selection,
      name,
      policy === null ? null : { compiled: compilePolicy(policy), shownPath },
    ).gate;
  };

  // The mcp.json name, as serve names the server (and `toolgate pin --config-dir D --server S` writes it).
  const pins: PinServer = { serverId: name, fromPins: false };
  const watch = location === null || location.path.startsWith(dir + "/") ? [dir] : [dir, location.path];
  const tests = selfTestFile(undefined, config);
  const shown = {
    ...(location === null ? {} : { policyShown: location.shown }),
    ...(tests === null ? {} : { tests }),
  };
  const server = found.server;
  const [program, ...args] = command;
  if (program !== undefined) {
    log(
      `running the command after -- instead of the entry of '${name}' in mcp.json` +
        (server.transport === "stdio" ? ` (${describeTarget(server)})` : ""),
      { code: "I_GATEWAY_NOTICE", server: name },
    );
    return {
      command: program,
      args,
      createGate,
      approvalKeys: { files: config.global.approvalKeys, dir: config.dir },
      pins,
      watch,
      ...shown,
      ...(server.startupTimeoutMs === undefined ? {} : { startupTimeoutMs: server.startupTimeoutMs }),
    };
  }
  if (server.transport !== "stdio") {
    log(
      `MCP server '${name}' is an ${server.transport} server, and wrap runs a stdio server: ` +
        `give the command to run after --`,
      { code: "E_USAGE", server: name },
    );
    return null;
  }
  const cwd =
    server.cwd === null ? undefined : isAbsolute(server.cwd) ? server.cwd : resolve(config.dir, server.cwd);
  return {
    command: server.command,
    args: [...server.args],
    // A drop-in for the entry: the client's environment plus the entry's env.
    env: { ...process.env, ...server.env },
    ...(cwd === undefined ? {} : { cwd }),
    createGate,
    approvalKeys: { files: config.global.approvalKeys, dir: config.dir },
    pins,
    watch,
    ...shown,
    ...(server.startupTimeoutMs === undefined ? {} : { startupTimeoutMs: server.startupTimeoutMs }),
  };
}
