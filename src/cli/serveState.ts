import type { GlobalConfig } from "../engine/model/configDir.js";
import type { OpenedState, StateRefusal } from "../state/sharedState.js";
import { openState as openStateAt } from "../state/stateRegistry.js";
import { logError } from "./log/stderrLog.js";
import { EXIT_BAD_INPUT } from "./serveFlags.js";

/**
 * Where `serve` keeps what its replicas must agree on: `--state`, else `state:` in config.yaml, else this
 * process's memory. The backend of the URL's scheme does the rest (src/state/stateRegistry.ts).
 */
export function openState(
  flag: string | undefined,
  config: GlobalConfig,
  idleMs: number,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<OpenedState> {
  const { state } = config;
  const givenAs =
    flag !== undefined
      ? "--state"
      : state !== null
        ? `state: at ${state.at.file}:${state.at.line}`
        : "the state";
  return openStateAt(flag ?? state?.url ?? "memory", { idleMs, env, log, givenAs });
}

/** `toolgate: error CODE: why` and its hint on stderr; serve stops before anything listens. */
export function stateRefused(refusal: StateRefusal): number {
  logError(refusal.code, refusal.why, refusal.hint);
  return EXIT_BAD_INPUT;
}
