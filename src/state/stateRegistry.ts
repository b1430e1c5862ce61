import { readStateUrl, STATE_URL_HINT, stateUrlForms, type StateScheme } from "../engine/model/stateUrl.js";
import { memoryBackend } from "./memoryState.js";
import { redisBackend } from "./redisBackend.js";
import type { OpenStateOptions, OpenedState, StateBackend } from "./sharedState.js";

/**
 * Every state backend, by the scheme of its URL. A new backend adds its scheme to STATE_SCHEMES
 * (engine/model/stateUrl.ts, with its URL check), its entry here, and itself to the contract suite's list
 * (test/contract/sharedState.test.ts); the type below refuses a scheme without a backend.
 */
export const STATE_BACKENDS: Readonly<Record<StateScheme, StateBackend>> = {
  memory: memoryBackend,
  redis: redisBackend,
  rediss: redisBackend,
};

/**
 * Opens the store `url` names, ready to use, or says why it cannot be used: a URL that names no store
 * toolgate knows (the same words config.yaml's `state:` gets at load time), or what its backend needs.
 */
export async function openState(url: string, options: OpenStateOptions): Promise<OpenedState> {
  const read = readStateUrl(url);
  if ("problem" in read) {
    return {
      code: "E_STATE_URL",
      why: `${options.givenAs} must be ${stateUrlForms()}, but ${read.problem}`,
      hint: STATE_URL_HINT,
    };
  }
  return STATE_BACKENDS[read.scheme].open(read, options);
}
