// Ownership records are renewed in proportion to the idle timeout: those of sessions used since the last
// renewal, and those busy with a call however long it runs; never those of quiet sessions.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ownershipTtlMs,
  renewalPeriodMs,
  startOwnershipRenewal,
  type OwnedSession,
} from "../../../src/transports/ownershipRenewal.js";
import type { SessionDirectory } from "../../../src/transports/replicaForward.js";

const IDLE = 30_000;

function directory(): SessionDirectory & { writes: Array<[string, number]> } {
  const writes: Array<[string, number]> = [];
  return {
    writes,
    self: "http://10.0.0.5:8931",
    own: async (id, _owner, ttl) => void writes.push([id, ttl]),
    ownerOf: async () => null,
    disown: async () => undefined,
    proveHop: () => "",
    checkHop: () => false,
  };
}

function session(at: number, busy = false): OwnedSession & { transport: { busy: boolean } } {
  return { lastSeen: at, ownedAt: at, transport: { busy } };
}

describe("ownership renewal", () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it("a period is a third of the idle timeout; a record lasts the idle timeout and one period", () => {
    expect(renewalPeriodMs(IDLE)).toBe(10_000);
    expect(renewalPeriodMs(1_800_000)).toBe(600_000);
    expect(ownershipTtlMs(IDLE)).toBe(40_000);
    expect(renewalPeriodMs(100)).toBe(250);
  });

  it("renews a busy session's record every period though no request comes, and a used one's once", async () => {
    const dir = directory();
    const now = Date.now();
    const sessions = new Map([
      ["busy", session(now, true)],
      ["quiet", session(now)],
      ["used", session(now)],
    ]);
    const stop = startOwnershipRenewal(dir, IDLE, sessions);
    sessions.get("used")!.lastSeen = now + 1;
    for (let i = 0; i < 4; i++) await vi.advanceTimersByTimeAsync(renewalPeriodMs(IDLE));
    expect(dir.writes.filter(([id]) => id === "busy")).toHaveLength(4);
    expect(dir.writes.filter(([id]) => id === "used")).toHaveLength(1);
    expect(dir.writes.filter(([id]) => id === "quiet")).toHaveLength(0);
    expect(new Set(dir.writes.map(([, ttl]) => ttl))).toEqual(new Set([ownershipTtlMs(IDLE)]));
    sessions.get("busy")!.transport.busy = false;
    await vi.advanceTimersByTimeAsync(renewalPeriodMs(IDLE));
    expect(dir.writes.filter(([id]) => id === "busy")).toHaveLength(4);
    stop();
    sessions.get("quiet")!.lastSeen = Date.now() + 1;
    await vi.advanceTimersByTimeAsync(renewalPeriodMs(IDLE) * 2);
    expect(dir.writes.filter(([id]) => id === "quiet")).toHaveLength(0);
  });

  it("a failed write is tried again next period", async () => {
    const dir = directory();
    let fail = true;
    const own = dir.own;
    dir.own = (id, owner, ttl) => (fail ? Promise.reject(new Error("down")) : own(id, owner, ttl));
    const sessions = new Map([["used", session(Date.now())]]);
    sessions.get("used")!.lastSeen = Date.now() + 1;
    const stop = startOwnershipRenewal(dir, IDLE, sessions);
    await vi.advanceTimersByTimeAsync(renewalPeriodMs(IDLE));
    fail = false;
    await vi.advanceTimersByTimeAsync(renewalPeriodMs(IDLE));
    await vi.advanceTimersByTimeAsync(renewalPeriodMs(IDLE));
    expect(dir.writes).toHaveLength(1);
    stop();
  });
});
