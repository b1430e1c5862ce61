import { createHmac } from "node:crypto";
import { stateUrlProblem } from "../config/configYaml.js";
import type { GlobalConfig } from "../engine/model/configDir.js";
import { MemoryState } from "../state/memoryState.js";
import { RedisState } from "../state/redisState.js";
import type { SharedState } from "../state/sharedState.js";

/**
 * Where `serve` keeps what its replicas must agree on: `--state`, else `state:` in config.yaml, else this
 * process's memory. Redis needs `TOOLGATE_STATE_SECRET` (a modern retry may land on any replica, which must
 * verify the state another one signed) and refuses to start beside replicas that sign with another secret:
 * each replica checks the secret's fingerprint (an HMAC of a fixed text, which does not reveal it) against
 * the one the first replica recorded.
 */
export async function openState(
  flag: string | undefined,
  config: GlobalConfig,
  idleMs: number,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<{ state: SharedState } | { why: string }> {
  const url = flag ?? config.state?.url ?? "memory";
  const problem = stateUrlProblem(url);
  if (problem !== null) {
    const where = flag !== undefined ? "--state" : `state: in ${config.file ?? "config.yaml"}`;
    return { why: `${where} must be memory or a Redis URL (redis://HOST:PORT[/DB]), but ${problem}` };
  }
  if (url === "memory") return { state: new MemoryState(idleMs) };
  const secret = env.TOOLGATE_STATE_SECRET;
  if (secret === undefined || secret === "") {
    return {
      why: "--state redis://… serves replicas: set TOOLGATE_STATE_SECRET (the same, at least 32 bytes, on every replica) so each can check the approval states the others sign",
    };
  }
  const state = new RedisState({ url, idleMs, log });
  await state.start();
  const agreed = await state.agree("requestState", fingerprint(secret)).catch((error: unknown) => {
    log(
      `could not check that the replicas share TOOLGATE_STATE_SECRET: ${error instanceof Error ? error.message : String(error)}`,
    );
    return true;
  });
  if (!agreed) {
    await state.close();
    return {
      why: `another replica using ${state.where} signs approval states with a different TOOLGATE_STATE_SECRET; give every replica the same one`,
    };
  }
  log(`state in ${state.where}: limits, approvals and sessions are shared with the other replicas`);
  return { state };
}

function fingerprint(secret: string): string {
  return createHmac("sha256", secret).update("toolgate requestState key id").digest("hex").slice(0, 32);
}
