// The approval desk: who may see and answer a waiting call (approvers only, never their own call, only the
// principals their approves: names) and its bounds per principal and in all.
import { describe, expect, it } from "vitest";
import {
  localPrincipal,
  mayAnswer,
  oauthPrincipal,
  samePerson,
  tokenPrincipal,
  type Operator,
  type PrincipalRights,
} from "../../../src/engine/model/principal.js";
import { ApprovalDesk } from "../../../src/session/approvalDesk.js";

const approver = (approves: string[] | null = null): PrincipalRights => ({
  mcp: true,
  dashboard: "approver",
  approves,
});
const ci = tokenPrincipal("ci");
const bot = tokenPrincipal("bot");
const aliceAtA = oauthPrincipal("team", "https://a.example", "alice");
const aliceAtAOther = oauthPrincipal("admins", "https://a.example", "alice");
const aliceAtB = oauthPrincipal("team", "https://b.example", "alice");

function ask(desk: ApprovalDesk, principal = ci, signal = new AbortController().signal) {
  return desk.wait(
    { principal, session: "s1", server: "fs", tool: "deploy", message: "Approve?" },
    60_000,
    signal,
  );
}

describe("principals", () => {
  it("keys never merge two issuers' subjects or two entries; names say both", () => {
    expect(aliceAtA.key).not.toBe(aliceAtB.key);
    expect(aliceAtA.key).not.toBe(aliceAtAOther.key);
    expect(tokenPrincipal("alice").key).not.toBe(localPrincipal("alice").key);
    expect(aliceAtA.name).toBe("team (alice at https://a.example)");
  });

  it("the same person: one issuer and subject whatever the entry; a static token is its entry", () => {
    expect(samePerson(aliceAtA, aliceAtAOther)).toBe(true);
    expect(samePerson(aliceAtA, aliceAtB)).toBe(false);
    expect(samePerson(ci, tokenPrincipal("ci"))).toBe(true);
    expect(samePerson(ci, bot)).toBe(false);
    // Two subject-less tokens under one entry cannot be told apart: the same; under two entries: not.
    expect(
      samePerson(oauthPrincipal("x", "https://a.example", ""), oauthPrincipal("y", "https://a.example", "")),
    ).toBe(false);
  });

  it("mayAnswer: viewers never, nobody their own call, approves: narrows", () => {
    expect(mayAnswer(bot, { mcp: false, dashboard: "viewer", approves: null }, ci).ok).toBe(false);
    expect(mayAnswer(ci, approver(), ci)).toEqual({
      ok: false,
      why: "ci made this call and cannot approve it themselves",
    });
    expect(mayAnswer(aliceAtAOther, approver(), aliceAtA).ok).toBe(false);
    expect(mayAnswer(aliceAtB, approver(), aliceAtA).ok).toBe(true);
    expect(mayAnswer(bot, approver(["team"]), ci).ok).toBe(false);
    expect(mayAnswer(bot, approver(["ci"]), ci).ok).toBe(true);
  });
});

describe("ApprovalDesk", () => {
  it("shows an approver only the calls they may answer, and records who answered", async () => {
    const desk = new ApprovalDesk();
    const mine = ask(desk, ci);
    const theirs = ask(desk, bot);
    const ciApprover: Operator = { principal: ci, rights: approver() };
    const narrow: Operator = { principal: tokenPrincipal("lead"), rights: approver(["bot"]) };
    expect(desk.pendingFor(ciApprover).map((p) => p.principal.entry)).toEqual(["bot"]);
    expect(desk.pendingFor(narrow).map((p) => p.principal.entry)).toEqual(["bot"]);
    const own = desk.pendingFor({ principal: bot, rights: approver() })[0]!;
    expect(own.principal.entry).toBe("ci");
    // ci tries to answer its own call with an id it somehow learned: 403, and the call still waits.
    expect(desk.answer(own.id, true, ciApprover)).toMatchObject({ ok: false, status: 403 });
    expect(desk.answer(own.id, true, narrow)).toMatchObject({ ok: false, status: 403 });
    expect(desk.size).toBe(2);
    expect(desk.answer(own.id, true, { principal: bot, rights: approver() })).toEqual({ ok: true });
    expect(await mine).toEqual({ approved: true, by: "bot" });
    const other = desk.pendingFor(ciApprover)[0]!;
    expect(desk.answer(other.id, false, ciApprover)).toEqual({ ok: true });
    expect(await theirs).toMatchObject({
      approved: false,
      outcome: "decline",
      detail: "denied by ci in the dashboard",
    });
    expect(desk.answer(other.id, true, ciApprover)).toMatchObject({ ok: false, status: 404 });
  });

  it("bounds waiting calls per principal: one principal full does not refuse another's", async () => {
    const desk = new ApprovalDesk({ total: 5, perPrincipal: 2 });
    const controller = new AbortController();
    const waiting = [ask(desk, ci, controller.signal), ask(desk, ci, controller.signal)];
    expect(await ask(desk, ci)).toMatchObject({
      approved: false,
      outcome: "error",
      detail: expect.stringContaining("at most 2 per principal"),
    });
    waiting.push(ask(desk, bot, controller.signal), ask(desk, aliceAtA, controller.signal));
    expect(desk.size).toBe(4);
    waiting.push(ask(desk, aliceAtB, controller.signal));
    expect(await ask(desk, tokenPrincipal("late"))).toMatchObject({
      detail: expect.stringContaining("at most 5"),
    });
    controller.abort();
    for (const w of waiting) expect(await w).toMatchObject({ outcome: "client-cancelled" });
    expect(desk.size).toBe(0);
  });
});
