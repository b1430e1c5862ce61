import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import type { StateUrl } from "../engine/model/stateUrl.js";
import { RedisState } from "./redisState.js";
import type { OpenStateOptions, OpenedState, StateBackend, StateRefusal } from "./sharedState.js";

/**
 * `redis://` and `rediss://`: a store replicas share. It needs `TOOLGATE_STATE_SECRET` (a modern retry may
 * land on any replica, which must verify the state another one signed) and refuses to start beside replicas
 * that sign with another secret: each replica checks the secret's fingerprint (an HMAC of a fixed text, which
 * does not reveal it) against the one the first replica recorded. An unreachable Redis is said, and the
 * gateway still starts: what needs the state is refused until it is there.
 */
export const redisBackend: StateBackend = {
  async open(url: StateUrl, options: OpenStateOptions): Promise<OpenedState> {
    const { env, log } = options;
    const secret = env.TOOLGATE_STATE_SECRET;
    if (secret === undefined || secret === "") {
      return {
        code: "E_STATE_SECRET",
        why: `${options.givenAs} names ${url.where}, a store replicas share, and TOOLGATE_STATE_SECRET is not set`,
        hint: "set TOOLGATE_STATE_SECRET to the same random value (at least 32 bytes, e.g. `openssl rand -hex 32`) on every replica, so each can check the approval states and session records the others sign",
      };
    }
    const ca = certificateAuthority(url, env);
    if ("why" in ca) return ca;
    const state = new RedisState({ url, idleMs: options.idleMs, log, ...ca });
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
        code: "E_STATE_SECRET",
        why: `another replica using ${state.where} signs approval states with a different TOOLGATE_STATE_SECRET`,
        hint: "give every replica the same TOOLGATE_STATE_SECRET; to change it, stop every replica and delete the key toolgate:key:requestState in that store",
      };
    }
    log(`state in ${state.where}: limits, approvals and sessions are shared with the other replicas`);
    return { state };
  },
};

/** `TOOLGATE_STATE_CA`: the PEM file of the CA that signs a `rediss://` server's certificate (a private CA). */
function certificateAuthority(url: StateUrl, env: NodeJS.ProcessEnv): { ca?: Buffer } | StateRefusal {
  const file = env.TOOLGATE_STATE_CA;
  if (file === undefined || file === "") return {};
  if (url.scheme !== "rediss") {
    // Fail closed: whoever set a CA meant the connection to be TLS.
    return {
      code: "E_STATE_CA",
      why: `TOOLGATE_STATE_CA is set but ${url.where} is not TLS`,
      hint: "write the state URL as rediss://… to verify the server with that CA, or unset TOOLGATE_STATE_CA",
    };
  }
  try {
    return { ca: readFileSync(file) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      code: "E_STATE_CA",
      why: `TOOLGATE_STATE_CA: cannot read ${file} (${reason})`,
      hint: "set TOOLGATE_STATE_CA to the PEM file of the CA that signs the Redis server's certificate, or unset it to trust Node's CAs",
    };
  }
}

function fingerprint(secret: string): string {
  return createHmac("sha256", secret).update("toolgate requestState key id").digest("hex").slice(0, 32);
}
