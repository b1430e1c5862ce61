// Which session makes room for a new one: a token at its share evicts its own idlest unused session, a full
// gateway the idlest unused of all; sessions in use are never evicted.
import { describe, expect, it } from "vitest";
import {
  admitSession,
  defaultPerTokenSessions,
  type SessionSlot,
} from "../../../src/transports/sessionAdmission.js";

const slot = (id: string, token: string, lastSeen: number, inUse = false): SessionSlot<string> => ({
  id,
  token,
  lastSeen,
  inUse,
});

describe("admitSession", () => {
  const limits = { total: 4, perToken: 2 };

  it("admits without eviction below both limits", () => {
    expect(admitSession([slot("a1", "a", 1)], "a", "a", limits)).toEqual({
      kind: "admit",
      evict: null,
      why: "",
    });
  });

  it("a token at its share evicts its own idlest unused session, never another token's", () => {
    const slots = [slot("b1", "b", 0), slot("a1", "a", 5), slot("a2", "a", 3)];
    expect(admitSession(slots, "a", "alice", limits)).toMatchObject({ kind: "admit", evict: "a2" });
  });

  it("skips sessions in use; with all of the token's in use, 429", () => {
    const slots = [slot("a1", "a", 1, true), slot("a2", "a", 9)];
    expect(admitSession(slots, "a", "alice", limits)).toMatchObject({ evict: "a2" });
    const busy = [slot("a1", "a", 1, true), slot("a2", "a", 2, true)];
    expect(admitSession(busy, "a", "alice", limits)).toMatchObject({
      kind: "refuse",
      status: 429,
      message: expect.stringContaining("alice has 2 sessions open and in use"),
    });
  });

  it("a full gateway evicts the idlest unused session of any token; all in use: 503", () => {
    const slots = [slot("a1", "a", 4), slot("b1", "b", 2), slot("c1", "c", 3), slot("d1", "d", 1, true)];
    expect(admitSession(slots, "e", "eve", limits)).toMatchObject({ kind: "admit", evict: "b1" });
    const busy = slots.map((s) => ({ ...s, inUse: true }));
    expect(admitSession(busy, "e", "eve", limits)).toMatchObject({ kind: "refuse", status: 503 });
  });

  it("with one share as large as the whole, the gateway's limit answers (503, not 429)", () => {
    const busy = [slot("a1", "a", 1, true), slot("a2", "a", 2, true)];
    expect(admitSession(busy, "a", "alice", { total: 2, perToken: 2 })).toMatchObject({ status: 503 });
  });
});

describe("defaultPerTokenSessions", () => {
  it("is an equal share, at least one", () => {
    expect(defaultPerTokenSessions(32, 1)).toBe(32);
    expect(defaultPerTokenSessions(32, 3)).toBe(10);
    expect(defaultPerTokenSessions(4, 10)).toBe(1);
  });
});
