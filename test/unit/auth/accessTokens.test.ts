// AccessTokens and IssuerKeys against a stand-in issuer on 127.0.0.1 (a node:http server that counts what
// it is asked): the typ rule, and the bounds on fetching an issuer's metadata and keys: size, time, one
// fetch per cool-down while the issuer fails or a token names a key it never published. The clock of the
// cool-downs is the test's, so nothing here waits for real time to pass.
import { afterEach, describe, expect, it } from "vitest";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { AccessTokens, typProblem } from "../../../src/auth/accessTokens.js";
import { IssuerKeys } from "../../../src/auth/issuerKeys.js";
import { endless, json, startStandIn, type StandIn } from "./issuerStandIn.js";

const AUDIENCE = "http://127.0.0.1:1/mcp";
let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.stop();
  standIn = undefined;
});

async function keyPair(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } as JWK };
}

/** An issuer that publishes `keys()` (read at each request, so a test can rotate them). */
async function goodIssuer(keys: () => JWK[]): Promise<StandIn> {
  return startStandIn((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/.well-known/openid-configuration")
      json(res, { issuer: standIn!.url, jwks_uri: `${standIn!.url}/jwks` });
    else if (path === "/jwks") json(res, { keys: keys() });
    else json(res, {}, 404);
  });
}

function checker(clock: { now: number }, timeoutMs = 5000) {
  const keys = new IssuerKeys({ now: () => clock.now, timeoutMs });
  return new AccessTokens({ issuers: [standIn!.url], audience: () => AUDIENCE, keys });
}

async function token(
  key: Awaited<ReturnType<typeof keyPair>>,
  header: Record<string, unknown> = {},
  iss = standIn!.url,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: "u", client_id: "ci" })
    .setProtectedHeader({ alg: "RS256", kid: key.jwk.kid!, ...header })
    .setIssuer(iss)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(key.privateKey);
}

describe("the typ of an access token (RFC 8725 §3.11, RFC 9068 §2.1)", () => {
  it.each([undefined, "at+jwt", "AT+JWT", "application/at+jwt", "Application/At+Jwt", "JWT", "jwt"])(
    "accepts %s",
    (typ) => expect(typProblem(typ)).toBeNull(),
  );
  it.each([
    "id_token+jwt",
    "logout+jwt",
    "token-introspection+jwt",
    "secevent+jwt",
    "dpop+jwt",
    "",
    "at+jwt ",
  ])("refuses %j as not an access token's", (typ) =>
    expect(typProblem(typ)).toContain(`typ ${JSON.stringify(typ)} is not an access token's`),
  );
  it("refuses a typ that is not a string", () => {
    expect(typProblem(5)).toContain("not a string");
    expect(typProblem(["at+jwt"])).toContain("not a string");
  });

  it("refuses a signed token with another typ before fetching any key, and accepts the access token types", async () => {
    const key = await keyPair("k1");
    standIn = await goodIssuer(() => [key.jwk]);
    const tokens = checker({ now: 0 });
    const refused = await tokens.check(await token(key, { typ: "id_token+jwt" }));
    expect(refused).toEqual({
      ok: false,
      description: expect.stringContaining(`the token's typ "id_token+jwt" is not an access token's`),
    });
    expect(standIn.total()).toBe(0);
    for (const typ of ["at+jwt", "application/AT+JWT", "JWT"])
      expect((await tokens.check(await token(key, { typ }))).ok, typ).toBe(true);
    expect((await tokens.check(await token(key))).ok).toBe(true);
  });
});

describe("fetching an issuer's keys: bounded, and at most once per cool-down", () => {
  it("fetches once per cool-down while the issuer fails, however many tokens name it", async () => {
    standIn = await startStandIn((_req, res) => json(res, { error: "down" }, 500));
    const key = await keyPair("k1");
    const clock = { now: 1_000_000 };
    const tokens = checker(clock);
    const bad = await token(key);
    for (let i = 0; i < 50; i++) {
      const outcome = await tokens.check(bad);
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.description).toContain("answered HTTP 500");
    }
    // One discovery: the OpenID path, then the RFC 8414 one.
    expect(standIn.total()).toBe(2);
    clock.now += 29_999;
    await tokens.check(bad);
    expect(standIn.total()).toBe(2);
    clock.now += 1;
    await Promise.all(Array.from({ length: 20 }, () => tokens.check(bad)));
    expect(standIn.total()).toBe(4);
  });

  it("shares one fetch among concurrent requests", async () => {
    const key = await keyPair("k1");
    standIn = await goodIssuer(() => [key.jwk]);
    const tokens = checker({ now: 0 });
    const good = await token(key);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => tokens.check(good)));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(standIn.hits.get("/jwks")).toBe(1);
    expect(standIn.hits.get("/.well-known/openid-configuration")).toBe(1);
  });

  it("stops reading a key set larger than 1 MiB and remembers the failure", async () => {
    const sent = { bytes: 0, closed: false };
    standIn = await startStandIn((req, res) => {
      if (req.url === "/.well-known/openid-configuration")
        json(res, { issuer: standIn!.url, jwks_uri: `${standIn!.url}/jwks` });
      else endless(res, sent);
    });
    const tokens = checker({ now: 0 });
    const bad = await token(await keyPair("k1"));
    for (let i = 0; i < 5; i++) {
      const outcome = await tokens.check(bad);
      expect(outcome).toEqual({
        ok: false,
        description: expect.stringContaining("is larger than 1048576 bytes"),
      });
    }
    expect(standIn.hits.get("/jwks")).toBe(1);
    for (let i = 0; i < 100 && !sent.closed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sent.closed).toBe(true);
    // Far less than the 64 MiB the stand-in would have sent to a reader that read on.
    expect(sent.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it("stops reading metadata larger than 256 KiB", async () => {
    standIn = await startStandIn((_req, res) => json(res, { issuer: "x", pad: "y".repeat(300 * 1024) }));
    const outcome = await checker({ now: 0 }).check(await token(await keyPair("k1")));
    expect(outcome).toEqual({
      ok: false,
      description: expect.stringContaining("is larger than 262144 bytes"),
    });
  });

  it("refuses with the reason when the key set is not one", async () => {
    standIn = await startStandIn((req, res) => {
      if (req.url === "/.well-known/openid-configuration")
        json(res, { issuer: standIn!.url, jwks_uri: `${standIn!.url}/jwks` });
      else json(res, { keys: "none" });
    });
    const outcome = await checker({ now: 0 }).check(await token(await keyPair("k1")));
    expect(outcome).toEqual({
      ok: false,
      description: expect.stringContaining(`${standIn.url}/jwks is not a JSON Web Key Set`),
    });
  });

  it("gives up on an issuer that does not answer, within the time bound", async () => {
    standIn = await startStandIn(() => undefined);
    const tokens = checker({ now: 0 }, 200);
    const outcome = await tokens.check(await token(await keyPair("k1")));
    expect(outcome).toEqual({
      ok: false,
      description: expect.stringContaining("no complete answer within 200 ms"),
    });
    await tokens.check(await token(await keyPair("k1")));
    expect(standIn.total()).toBe(2);
  });

  it("fetches again for an unknown kid at most once per cool-down, and takes a rotated key then", async () => {
    const first = await keyPair("k1");
    const second = await keyPair("k2");
    let published = [first.jwk];
    standIn = await goodIssuer(() => published);
    const clock = { now: 0 };
    const tokens = checker(clock);
    expect((await tokens.check(await token(first))).ok).toBe(true);
    expect(standIn.hits.get("/jwks")).toBe(1);
    const stranger = await keyPair("never-published");
    for (let i = 0; i < 20; i++) {
      const outcome = await tokens.check(await token(stranger));
      expect(outcome).toEqual({
        ok: false,
        description: expect.stringContaining("a key the issuer does not publish"),
      });
    }
    expect(standIn.hits.get("/jwks")).toBe(1);
    published = [first.jwk, second.jwk];
    clock.now += 30_000;
    expect((await tokens.check(await token(second))).ok).toBe(true);
    expect(standIn.hits.get("/jwks")).toBe(2);
    await tokens.check(await token(stranger));
    expect(standIn.hits.get("/jwks")).toBe(2);
  });

  it("does not use keys past their age when fetching them again fails (fail closed)", async () => {
    const key = await keyPair("k1");
    let up = true;
    standIn = await startStandIn((req, res) => {
      if (!up) return json(res, {}, 503);
      if (req.url === "/.well-known/openid-configuration")
        return json(res, { issuer: standIn!.url, jwks_uri: `${standIn!.url}/jwks` });
      json(res, { keys: [key.jwk] });
    });
    const clock = { now: 0 };
    const tokens = checker(clock);
    expect((await tokens.check(await token(key))).ok).toBe(true);
    up = false;
    clock.now += 599_999;
    expect((await tokens.check(await token(key))).ok).toBe(true);
    clock.now += 1;
    const outcome = await tokens.check(await token(key));
    expect(outcome).toEqual({ ok: false, description: expect.stringContaining("answered HTTP 503") });
  });
});
