// What only the Redis backend does, beside the contract it keeps with every backend (sharedState.test.ts):
// TLS that is verified or not used at all, a CA file that is read or refused, and credentials that never
// reach a message. Against Debian's redis-server on 127.0.0.1, started and stopped by this file.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SharedState } from "../../src/state/sharedState.js";
import { openState } from "../../src/state/stateRegistry.js";
import { startRedisServer, type RedisServer } from "../support/redisServer.js";
import { CONTRACT_STATE_SECRET } from "./sharedStateContract.js";

let tls: RedisServer;
let plain: RedisServer;
const handles: SharedState[] = [];

beforeAll(async () => {
  tls = await startRedisServer({ tls: true });
  plain = await startRedisServer();
}, 60_000);

afterAll(async () => {
  for (const handle of handles) await handle.close();
  await tls?.stop();
  await plain?.stop();
});

async function open(url: string, env: NodeJS.ProcessEnv = {}) {
  const log: string[] = [];
  const opened = await openState(url, {
    idleMs: 60_000,
    env: { TOOLGATE_STATE_SECRET: CONTRACT_STATE_SECRET, ...env },
    log: (line) => log.push(line),
    givenAs: "--state",
  });
  if ("state" in opened) handles.push(opened.state);
  return { opened, log };
}

async function refusal(state: SharedState): Promise<unknown> {
  return Promise.resolve(state.count("p", true)).then(
    () => "served",
    (error: { code?: string }) => error.code,
  );
}

describe("rediss://", () => {
  it("a server whose certificate chains to no trusted CA is never used: every operation is refused, and the log says why", async () => {
    const { opened, log } = await open(tls.url);
    if (!("state" in opened)) throw new Error(opened.why);
    expect(await refusal(opened.state)).toBe("E_STATE_UNAVAILABLE");
    expect(log.join("\n")).toMatch(/is unreachable \(.*certificate/);
  });

  it("with TOOLGATE_STATE_CA naming the CA that signed it, the same server is used", async () => {
    const { opened } = await open(tls.url, { TOOLGATE_STATE_CA: tls.caFile });
    if (!("state" in opened)) throw new Error(opened.why);
    expect(await refusal(opened.state)).toBe("served");
  });

  it("a plain redis:// client is not answered by a TLS-only server (no silent plaintext)", async () => {
    const { opened } = await open(`redis://127.0.0.1:${tls.port}`);
    if (!("state" in opened)) throw new Error(opened.why);
    expect(await refusal(opened.state)).toBe("E_STATE_UNAVAILABLE");
  });

  it("TLS is asked for by the scheme however it is spelled (REDISS://)", async () => {
    const { opened } = await open(`REDISS://127.0.0.1:${tls.port}`, { TOOLGATE_STATE_CA: tls.caFile });
    if (!("state" in opened)) throw new Error(opened.why);
    expect(opened.state.where).toBe(`rediss://127.0.0.1:${tls.port}`);
    expect(await refusal(opened.state)).toBe("served");
  });
});

describe("TOOLGATE_STATE_CA", () => {
  it("beside redis:// is refused: whoever set a CA meant TLS", async () => {
    const { opened } = await open(plain.url, { TOOLGATE_STATE_CA: tls.caFile });
    expect(opened).toMatchObject({
      code: "E_STATE_CA",
      why: `TOOLGATE_STATE_CA is set but redis://127.0.0.1:${plain.port} is not TLS`,
      hint: expect.stringMatching(/^write the state URL as rediss:\/\/…/),
    });
  });

  it("that cannot be read is refused, naming the file", async () => {
    const missing = join(tls.caFile!, "..", "no-such-ca.pem");
    const { opened } = await open(tls.url, { TOOLGATE_STATE_CA: missing });
    expect(opened).toMatchObject({
      code: "E_STATE_CA",
      why: expect.stringMatching(/^TOOLGATE_STATE_CA: cannot read .* \(ENOENT/),
    });
    expect("why" in opened && opened.why).toContain(missing);
  });
});

describe("credentials in the URL", () => {
  it("never reach where the state is said to be, nor a log line", async () => {
    const { opened, log } = await open(`redis://:hunter2-state-password@127.0.0.1:${plain.port}/3`);
    if (!("state" in opened)) throw new Error(opened.why);
    expect(opened.state.where).toBe(`redis://127.0.0.1:${plain.port}/3`);
    expect(log.length).toBeGreaterThan(0);
    expect(log.join("\n")).not.toContain("hunter2");
  });
});
