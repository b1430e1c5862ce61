import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  allowedHostSet,
  isOwnOrigin,
  BearerTokens,
  hostAllowed,
  normalizeOrigin,
  originAllowed,
} from "../../../src/transports/httpGuard.js";

const digest = (t: string): Buffer => createHash("sha256").update(t).digest();

describe("Host check (DNS rebinding)", () => {
  const loopback = allowedHostSet("127.0.0.1", 8080, []);
  it.each([
    ["127.0.0.1:8080", true],
    ["localhost:8080", true],
    ["LOCALHOST:8080", true],
    ["[::1]:8080", true],
    ["127.0.0.1:8081", false],
    ["localhost", false],
    ["evil.example:8080", false],
    ["", false],
    [undefined, false],
  ])("bound to 127.0.0.1:8080, Host %s → %s", (host, ok) => {
    expect(hostAllowed(host, loopback)).toBe(ok);
  });

  it("accepts --allowed-host names, with our port unless they give one", () => {
    const set = allowedHostSet("0.0.0.0", 9000, ["gateway.internal", "proxy.internal:443"]);
    expect(hostAllowed("gateway.internal:9000", set)).toBe(true);
    expect(hostAllowed("proxy.internal:443", set)).toBe(true);
    expect(hostAllowed("gateway.internal:443", set)).toBe(false);
    expect(hostAllowed("localhost:9000", set)).toBe(false);
  });
});

describe("Origin check", () => {
  const allowed = new Set(["https://app.example"].map(normalizeOrigin));
  it.each([
    [undefined, true],
    ["https://app.example", true],
    ["HTTPS://APP.EXAMPLE/", true],
    ["https://evil.example", false],
    ["null", false],
    ["http://app.example", false],
  ])("Origin %s → %s", (origin, ok) => {
    expect(originAllowed(origin, allowed)).toBe(ok);
  });
});

describe("BearerTokens", () => {
  const tokens = new BearerTokens([
    { digest: digest("token-one-0123456789"), label: "one" },
    { digest: digest("token-two-0123456789"), label: "two" },
  ]);
  it.each([
    ["Bearer token-one-0123456789", "one"],
    ["bearer token-two-0123456789", "two"],
    ["Bearer  token-two-0123456789 ", "two"],
    ["Bearer token-one-012345678", null],
    ["Basic dG9rZW4=", null],
    ["token-one-0123456789", null],
    ["Bearer", null],
    [undefined, null],
  ])("%s → %s", (header, label) => {
    expect(tokens.match(header)?.label ?? null).toBe(label);
  });

  it("refuses digests that are not SHA-256", () => {
    expect(() => new BearerTokens([{ digest: Buffer.alloc(16) }])).toThrow(/32-byte/);
  });
});

describe("isOwnOrigin", () => {
  const hosts = allowedHostSet("127.0.0.1", 8080, ["gate.example"]);
  it("accepts http:// and a Host the gateway accepts", () => {
    for (const origin of [
      "http://localhost:8080",
      "http://127.0.0.1:8080/",
      "HTTP://LOCALHOST:8080",
      "http://gate.example:8080",
    ]) {
      expect([origin, isOwnOrigin(origin, hosts)]).toEqual([origin, true]);
    }
  });
  it("refuses another port, scheme, host, userinfo, a path, null and no header", () => {
    for (const origin of [
      "http://localhost:8081",
      "https://localhost:8080",
      "http://evil.example:8080",
      "http://x@localhost:8080",
      "http://localhost:8080/ui",
      "null",
      undefined,
    ]) {
      expect([origin, isOwnOrigin(origin, hosts)]).toEqual([origin, false]);
    }
  });
});
