// The contract every state backend keeps, as one list of cases (in the manner of Hono's shared router
// suite): sharedState.test.ts runs it against each backend it lists, opened through the registry by its URL
// the way serve opens it. Time is real (a store such as Redis keeps its own clock), so expiry is only ever
// checked after waiting well past it, and "not yet expired" only with TTLs of a minute.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StateScheme } from "../../src/engine/model/stateUrl.js";
import { StateUnavailable, type SharedState } from "../../src/state/sharedState.js";
import { openState } from "../../src/state/stateRegistry.js";

export const CONTRACT_STATE_SECRET = "contract-state-secret-0123456789abcdef";
const MINUTE = 60_000;

/** One backend as the suite runs it. */
export interface StoreUnderTest {
  name: string;
  /** The schemes of STATE_SCHEMES this entry covers. */
  schemes: StateScheme[];
  /** Whether other processes see what one writes (what `sharedByReplicas` must say). */
  shared: boolean;
  /** Whether the store can be away (a server); one inside this process cannot, and skips those cases. */
  canBeAway: boolean;
  /** Starts what the store needs, once for its cases. */
  start(): Promise<RunningStore>;
}

export interface RunningStore {
  url: string;
  /** What else the backend reads from the environment (TOOLGATE_STATE_CA), beside the secret. */
  env: NodeJS.ProcessEnv;
  /** With canBeAway: stops the store and starts it again where it was. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** With canBeAway: a URL of this backend where nothing answers. */
  nowhere(): Promise<string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const unique = (what: string) => `${what}-${randomUUID()}`;
const said = (lines: string[], pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
const UNREACHABLE = /^state \S+ is unreachable \(/;

/** What an operation came to: served, refused as StateUnavailable (E_STATE_UNAVAILABLE), or another error. */
async function outcome(operation: () => unknown): Promise<"served" | "unavailable" | unknown> {
  try {
    await operation();
    return "served";
  } catch (error) {
    return error instanceof StateUnavailable && error.code === "E_STATE_UNAVAILABLE" ? "unavailable" : error;
  }
}

/** Each operation of the interface once. */
function everyOperation(state: SharedState): (() => unknown)[] {
  return [
    () => state.count(unique("p"), true),
    () => state.claim(unique("id"), Date.now() + MINUTE),
    () => state.own(unique("s"), "owner", MINUTE),
    () => state.ownerOf(unique("s")),
    () => state.disown(unique("s")),
  ];
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

export function sharedStateContract(store: StoreUnderTest): void {
  describe(`${store.name}: the SharedState contract`, () => {
    let running: RunningStore;
    const handles: SharedState[] = [];
    const lines: string[] = [];

    async function open(
      options: { idleMs?: number; url?: string; log?: string[]; secret?: string } = {},
    ): Promise<SharedState> {
      const opened = await openState(options.url ?? running.url, {
        idleMs: options.idleMs ?? MINUTE,
        env: { ...running.env, TOOLGATE_STATE_SECRET: options.secret ?? CONTRACT_STATE_SECRET },
        log: (line) => (options.log ?? lines).push(line),
        givenAs: "--state",
      });
      if ("why" in opened) throw new Error(opened.why);
      handles.push(opened.state);
      return opened.state;
    }

    /** Two handles on the store: two replicas' when it is shared, else this process's one, twice. */
    async function pair(): Promise<[SharedState, SharedState]> {
      const a = await open();
      return [a, store.shared ? await open() : a];
    }

    beforeAll(async () => {
      running = await store.start();
    }, 60_000);

    afterAll(async () => {
      for (const handle of handles) await handle.close();
      if (store.canBeAway) await running?.stop();
    });

    it("says truly whether other processes share it: a second handle sees the first one's counts or not", async () => {
      const a = await open();
      const b = await open();
      expect(a.sharedByReplicas).toBe(store.shared);
      const principal = unique("p");
      await a.count(principal, false);
      expect((await b.count(principal, false)).requests).toBe(store.shared ? 1 : 0);
      expect(a.where).not.toMatch(/@/);
    });

    it("asks for TOOLGATE_STATE_SECRET exactly when replicas share it, and refuses one that differs from theirs", async () => {
      const base = { idleMs: MINUTE, log: () => {}, givenAs: "--state" };
      const without = await openState(running.url, { ...base, env: { ...running.env } });
      await open();
      const other = await openState(running.url, {
        ...base,
        env: { ...running.env, TOOLGATE_STATE_SECRET: "another-state-secret-0123456789abcdef" },
      });
      if (store.shared) {
        expect(without).toMatchObject({ code: "E_STATE_SECRET" });
        expect("why" in without && without.why).toMatch(/TOOLGATE_STATE_SECRET is not set$/);
        expect("why" in without && without.hint).toMatch(/^set TOOLGATE_STATE_SECRET .* on every replica/);
        expect(other).toMatchObject({ code: "E_STATE_SECRET" });
        expect("why" in other && other.why).toMatch(/different TOOLGATE_STATE_SECRET$/);
      } else {
        for (const opened of [without, other]) {
          expect("state" in opened).toBe(true);
          if ("state" in opened) await opened.state.close();
        }
      }
    });

    it("count: the counts before this request, per principal; a tool call counts as a request and a call", async () => {
      const [a, b] = await pair();
      const p = unique("p");
      const q = unique("q");
      expect(await a.count(p, true)).toEqual({ requests: 0, toolCalls: 0 });
      expect(await b.count(p, false)).toEqual({ requests: 1, toolCalls: 1 });
      expect(await a.count(p, true)).toEqual({ requests: 2, toolCalls: 1 });
      expect(await b.count(q, true)).toEqual({ requests: 0, toolCalls: 0 });
      expect(await a.count(p, false)).toEqual({ requests: 3, toolCalls: 2 });
    });

    it("count: a principal idle for longer than the idle time starts again from zero", async () => {
      const state = await open({ idleMs: 1500 });
      const p = unique("p");
      expect(await state.count(p, true)).toEqual({ requests: 0, toolCalls: 0 });
      expect(await state.count(p, true)).toEqual({ requests: 1, toolCalls: 1 });
      await sleep(2000);
      expect(await state.count(p, true)).toEqual({ requests: 0, toolCalls: 0 });
    });

    it("claim: an id is spent once, for every handle, and other ids are not", async () => {
      const [a, b] = await pair();
      const id = unique("id");
      const until = Date.now() + MINUTE;
      expect(await a.claim(id, until)).toBe(true);
      expect(await b.claim(id, until)).toBe(false);
      expect(await a.claim(id, until)).toBe(false);
      expect(await b.claim(unique("id"), until)).toBe(true);
    });

    it("claim: once its expiry has passed, an id can be claimed again", async () => {
      const state = await open();
      const id = unique("id");
      expect(await state.claim(id, Date.now() + 200)).toBe(true);
      await sleep(600);
      expect(await state.claim(id, Date.now() + MINUTE)).toBe(true);
      expect(await state.claim(id, Date.now() + MINUTE)).toBe(false);
    });

    it("own, ownerOf, disown: the record as written, replaced by the next, gone when disowned", async () => {
      const [a, b] = await pair();
      const session = unique("s");
      // Kept byte for byte: the replicas sign it, the store is not trusted to say who owns what.
      const record = `http://10.0.0.5:8931 ${"f0".repeat(32)} é`;
      expect(await b.ownerOf(session)).toBeNull();
      await a.own(session, record, MINUTE);
      expect(await b.ownerOf(session)).toBe(record);
      await b.own(session, "http://10.0.0.6:8931 other", MINUTE);
      expect(await a.ownerOf(session)).toBe("http://10.0.0.6:8931 other");
      await a.disown(session);
      expect(await b.ownerOf(session)).toBeNull();
      await expect(b.disown(unique("never-owned"))).resolves.toBeUndefined();
    });

    it("own: a record lapses after its TTL, and owning it again renews it", async () => {
      const state = await open();
      const lapsed = unique("s");
      const renewed = unique("s");
      await state.own(lapsed, "owner", 200);
      await state.own(renewed, "owner", 200);
      await state.own(renewed, "owner", MINUTE);
      await sleep(600);
      expect(await state.ownerOf(lapsed)).toBeNull();
      expect(await state.ownerOf(renewed)).toBe("owner");
    });

    it("claims racing: of 24 claims of one id at once, across the handles, exactly one wins", async () => {
      const [a, b] = await pair();
      const id = unique("id");
      const until = Date.now() + MINUTE;
      const won = await Promise.all(
        Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? a : b).claim(id, until)),
      );
      expect(won.filter((w) => w)).toHaveLength(1);
    });

    it("counts racing: 40 counts at once, across the handles, each see a different count and the total is exact", async () => {
      const [a, b] = await pair();
      const p = unique("p");
      const isCall = (i: number) => i % 4 === 0;
      const seen = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).count(p, isCall(i))),
      );
      const ascending = (values: number[]) => [...values].sort((x, y) => x - y);
      expect(ascending(seen.map((s) => s.requests))).toEqual([...Array(40).keys()]);
      expect(ascending(seen.filter((_, i) => isCall(i)).map((s) => s.toolCalls))).toEqual([
        ...Array(10).keys(),
      ]);
      expect(await b.count(p, false)).toEqual({ requests: 40, toolCalls: 10 });
    });

    it("close: resolves, twice too; afterwards nothing hangs, is said to be unreachable, or fails otherwise", async () => {
      const log: string[] = [];
      const state = await open({ log });
      const p = unique("p");
      await state.count(p, true);
      await state.close();
      await state.close();
      for (const operation of everyOperation(state))
        expect(["served", "unavailable"]).toContain(await outcome(operation));
      expect(said(log, UNREACHABLE)).toBe(0);
      // What a shared store holds outlives one replica's handle.
      if (store.shared) expect(await (await open()).count(p, false)).toEqual({ requests: 1, toolCalls: 1 });
    });

    it.runIf(store.canBeAway)(
      "a store that is not there: serve still starts, says so once, and every operation is refused with E_STATE_UNAVAILABLE",
      async () => {
        const log: string[] = [];
        const state = await open({ url: await running.nowhere(), log });
        for (let round = 0; round < 2; round++) {
          for (const operation of everyOperation(state)) expect(await outcome(operation)).toBe("unavailable");
        }
        expect(said(log, UNREACHABLE)).toBe(1);
      },
    );

    // Last: it takes the store away from every handle.
    it.runIf(store.canBeAway)(
      "the store goes away and comes back: refused with E_STATE_UNAVAILABLE while away (said once), served once back",
      async () => {
        const log: string[] = [];
        const state = await open({ log });
        expect(await outcome(() => state.count(unique("p"), true))).toBe("served");
        await running.stop();
        for (let round = 0; round < 2; round++) {
          for (const operation of everyOperation(state)) expect(await outcome(operation)).toBe("unavailable");
        }
        expect(said(log, UNREACHABLE)).toBe(1);
        await running.restart();
        await until(
          async () => ((await outcome(() => state.count(unique("p"), true))) === "served" ? true : undefined),
          20_000,
        );
        for (const operation of everyOperation(state)) expect(await outcome(operation)).toBe("served");
        expect(said(log, /is reachable again$/)).toBe(1);
      },
      40_000,
    );
  });
}
