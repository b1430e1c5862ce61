// The dashboard's sign-in attempts keep no state on the server while they run: a flood of attempts by
// another client cannot end a person's attempt, a callback needs the cookie of the browser that started
// it, each callback is taken once, and the PKCE verifier never travels through the browser. Against a
// stand-in provider on 127.0.0.1 whose token endpoint checks the verifier against the challenge it was
// sent, as a real one does; the clock is the test's.
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { DashboardSignIn } from "../../../src/auth/dashboardSignIn.js";
import { json, startStandIn, type StandIn } from "./issuerStandIn.js";

const REDIRECT = "http://127.0.0.1:1/ui/oauth/callback";
let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.stop();
  standIn = undefined;
});

/** A provider: one code per challenge it was sent at /authorize (the test plays that part), redeemed once. */
async function provider(): Promise<{ codeFor(location: string): string; verifiers: string[] }> {
  const challenges = new Map<string, string>();
  const verifiers: string[] = [];
  standIn = await startStandIn((req, res, body) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/.well-known/openid-configuration")
      return json(res, {
        issuer: standIn!.url,
        jwks_uri: `${standIn!.url}/jwks`,
        authorization_endpoint: `${standIn!.url}/authorize`,
        token_endpoint: `${standIn!.url}/token`,
      });
    if (path !== "/token") return json(res, {}, 404);
    const form = new URLSearchParams(body);
    const verifier = form.get("code_verifier") ?? "";
    verifiers.push(verifier);
    const challenge = challenges.get(form.get("code") ?? "");
    challenges.delete(form.get("code") ?? "");
    if (challenge !== createHash("sha256").update(verifier).digest("base64url"))
      return json(res, { error: "invalid_grant" }, 400);
    json(res, { access_token: `token-for-${form.get("code")}` });
  });
  let n = 0;
  return {
    verifiers,
    codeFor(location) {
      const code = `code-${++n}`;
      challenges.set(code, new URL(location).searchParams.get("code_challenge")!);
      return code;
    },
  };
}

function signIn(clock: { now: number }): DashboardSignIn {
  return new DashboardSignIn({
    issuer: standIn!.url,
    clientId: "dashboard",
    resource: () => "http://127.0.0.1:1/mcp",
    now: () => clock.now,
  });
}

function callback(location: string, code: string): URLSearchParams {
  return new URLSearchParams({ state: new URL(location).searchParams.get("state")!, code });
}

describe("the dashboard's sign-in attempts", () => {
  it("survive 200 attempts started by another client after them", async () => {
    const idp = await provider();
    const clock = { now: 1_700_000_000_000 };
    const flow = signIn(clock);
    const person = await flow.start(REDIRECT);
    const flood = [];
    for (let i = 0; i < 200; i++) flood.push(await flow.start(REDIRECT));
    clock.now += 5 * 60_000;
    const done = await flow.finish(
      callback(person.location, idp.codeFor(person.location)),
      person.nonce,
      REDIRECT,
    );
    expect(done).toEqual({ token: "token-for-code-1" });
    // The flood's attempts are all still good too: none pushed out another.
    const last = flood.at(-1)!;
    expect(
      await flow.finish(callback(last.location, idp.codeFor(last.location)), last.nonce, REDIRECT),
    ).toEqual({
      token: "token-for-code-2",
    });
    // One metadata fetch for all 201 starts and both callbacks.
    expect(standIn!.hits.get("/.well-known/openid-configuration")).toBe(1);
  });

  it("never sends the verifier through the browser, and derives it again at the callback", async () => {
    const idp = await provider();
    const flow = signIn({ now: 1_700_000_000_000 });
    const attempt = await flow.start(REDIRECT);
    const done = await flow.finish(
      callback(attempt.location, idp.codeFor(attempt.location)),
      attempt.nonce,
      REDIRECT,
    );
    expect(done).toHaveProperty("token");
    const [verifier] = idp.verifiers;
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(attempt.location).not.toContain(verifier);
    expect(attempt.nonce).not.toContain(verifier);
    expect(new URL(attempt.location).searchParams.get("code_challenge_method")).toBe("S256");
  });

  it("refuses a callback without the cookie of the browser that started it, or with a forged state", async () => {
    const idp = await provider();
    const flow = signIn({ now: 1_700_000_000_000 });
    const mine = await flow.start(REDIRECT);
    const theirs = await flow.start(REDIRECT);
    const stale = "this sign-in was not started here, or it is too old";
    const params = callback(mine.location, idp.codeFor(mine.location));
    expect(await flow.finish(params, undefined, REDIRECT)).toEqual({
      problem: expect.stringContaining(stale),
    });
    expect(await flow.finish(params, theirs.nonce, REDIRECT)).toEqual({
      problem: expect.stringContaining(stale),
    });
    // The issued-at part of the cookie cannot be changed: it is under the HMAC.
    const [, random] = mine.nonce.split(".");
    expect(await flow.finish(params, `${(1_700_000_000_000 + 1).toString(36)}.${random}`, REDIRECT)).toEqual({
      problem: expect.stringContaining(stale),
    });
    const forged = new URLSearchParams({ state: "forged", code: "x" });
    expect(await flow.finish(forged, mine.nonce, REDIRECT)).toEqual({
      problem: expect.stringContaining(stale),
    });
    // None of those spent the attempt.
    expect(await flow.finish(params, mine.nonce, REDIRECT)).toHaveProperty("token");
    expect(standIn!.hits.get("/token")).toBe(1);
  });

  it("takes each callback once", async () => {
    const idp = await provider();
    const flow = signIn({ now: 1_700_000_000_000 });
    const attempt = await flow.start(REDIRECT);
    const params = callback(attempt.location, idp.codeFor(attempt.location));
    const [first, second] = await Promise.all([
      flow.finish(params, attempt.nonce, REDIRECT),
      flow.finish(params, attempt.nonce, REDIRECT),
    ]);
    expect(first).toHaveProperty("token");
    expect(second).toEqual({ problem: "this sign-in was already used: start again" });
    expect(await flow.finish(params, attempt.nonce, REDIRECT)).toEqual({
      problem: "this sign-in was already used: start again",
    });
    expect(standIn!.hits.get("/token")).toBe(1);
  });

  it("ends an attempt after ten minutes, and with the process (another key)", async () => {
    const idp = await provider();
    const clock = { now: 1_700_000_000_000 };
    const flow = signIn(clock);
    const attempt = await flow.start(REDIRECT);
    const params = callback(attempt.location, idp.codeFor(attempt.location));
    expect(await signIn(clock).finish(params, attempt.nonce, REDIRECT)).toEqual({
      problem: expect.stringContaining("not started here"),
    });
    clock.now += 10 * 60_000;
    expect(await flow.finish(params, attempt.nonce, REDIRECT)).toEqual({
      problem: expect.stringContaining("too old"),
    });
    expect(standIn!.hits.get("/token")).toBeUndefined();
  });
});
