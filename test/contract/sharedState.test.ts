// Every state backend runs the one contract (sharedStateContract.ts): memory, Redis, and Redis over TLS,
// each a real store (Debian's redis-server on 127.0.0.1, started and stopped by this file). A new backend
// passes by adding itself to STORES; the first case fails while a registered scheme has no entry here.
import { describe, expect, it } from "vitest";
import { STATE_SCHEMES, STATE_URL_HINT } from "../../src/engine/model/stateUrl.js";
import { openState, STATE_BACKENDS } from "../../src/state/stateRegistry.js";
import { freePort, startRedisServer, type RedisServer } from "../support/redisServer.js";
import {
  CONTRACT_STATE_SECRET,
  sharedStateContract,
  type RunningStore,
  type StoreUnderTest,
} from "./sharedStateContract.js";

function redisStore(tls: boolean): () => Promise<RunningStore> {
  return async () => {
    const server: RedisServer = await startRedisServer({ tls });
    return {
      url: server.url,
      env: server.caFile === undefined ? {} : { TOOLGATE_STATE_CA: server.caFile },
      stop: () => server.stop(),
      restart: () => server.restart(),
      nowhere: async () => `${tls ? "rediss" : "redis"}://127.0.0.1:${await freePort()}`,
    };
  };
}

const STORES: StoreUnderTest[] = [
  {
    name: "memory",
    schemes: ["memory"],
    shared: false,
    canBeAway: false,
    start: () => {
      const away = () => Promise.reject(new Error("the memory store cannot be away"));
      return Promise.resolve({ url: "memory", env: {}, stop: away, restart: away, nowhere: away });
    },
  },
  { name: "redis://", schemes: ["redis"], shared: true, canBeAway: true, start: redisStore(false) },
  { name: "rediss:// (TLS)", schemes: ["rediss"], shared: true, canBeAway: true, start: redisStore(true) },
];

describe("the state registry", () => {
  it("every registered scheme has a backend and runs the contract here", () => {
    expect(Object.keys(STATE_BACKENDS).sort()).toEqual([...STATE_SCHEMES].sort());
    expect(STORES.flatMap((s) => s.schemes).sort()).toEqual([...STATE_SCHEMES].sort());
  });

  it("a URL that names no store is refused with what would be right, and no password", async () => {
    const opened = await openState("mysql://admin:hunter2@db:3306/x", {
      idleMs: 1000,
      env: { TOOLGATE_STATE_SECRET: CONTRACT_STATE_SECRET },
      log: () => {},
      givenAs: "--state",
    });
    expect(opened).toEqual({
      code: "E_STATE_URL",
      why: "--state must be memory, redis://[USER:PASSWORD@]HOST:PORT[/DB] or rediss://[USER:PASSWORD@]HOST:PORT[/DB] (Redis over TLS), but 'mysql:' is not a scheme toolgate keeps state in",
      hint: STATE_URL_HINT,
    });
  });
});

for (const store of STORES) sharedStateContract(store);
