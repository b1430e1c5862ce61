import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { claimsMatch, matchPrincipal, scopesOf } from "../../../src/auth/principals.js";
import { challenge, metadataUrl } from "../../../src/auth/resourceServer.js";

describe("OAuth principals from claims", () => {
  const claims = { sub: "u1", iss: "http://i", azp: "web", scope: "a b", groups: ["g1", "g2"] };
  it.each([
    [{ sub: "u1" }, true],
    [{ sub: "u2" }, false],
    [{ client_id: "web" }, true],
    [{ scope: ["a", "b"] }, true],
    [{ scope: ["c"] }, false],
    [{ groups: ["g2"] }, true],
    [{ groups: ["g3"] }, false],
    [{ iss: "http://other" }, false],
    [{ sub: "u1", scope: ["a"], groups: ["g1"] }, true],
  ])("%j matches: %s", (match, expected) => {
    expect(claimsMatch(match, claims)).toBe(expected);
  });
  it("compares groups element by element: a group's name is never split on spaces", () => {
    const split = { sub: "u", groups: ["mcp", "admins"] };
    const whole = { sub: "u", groups: ["mcp admins"] };
    expect(claimsMatch({ groups: ["mcp admins"] }, split)).toBe(false);
    expect(claimsMatch({ groups: ["mcp admins"] }, whole)).toBe(true);
    expect(claimsMatch({ groups: ["mcp"] }, whole)).toBe(false);
    expect(claimsMatch({ groups: ["mcp", "admins"] }, split)).toBe(true);
    // One string is one group, not a list of them.
    expect(claimsMatch({ groups: ["mcp"] }, { groups: "mcp admins" })).toBe(false);
    expect(claimsMatch({ groups: ["mcp admins"] }, { groups: "mcp admins" })).toBe(true);
  });

  it.each([
    ["scope as a space-separated string (RFC 9068)", { scope: "a b" }],
    ["scope as a list", { scope: ["a", "b"] }],
    ["scp as a space-separated string (Entra ID)", { scp: "a b" }],
    ["scp as a list (Okta)", { scp: ["a", "b"] }],
    ["both, each carrying one", { scope: "a", scp: ["b"] }],
  ])("reads %s", (_what, token) => {
    expect([...scopesOf(token)].sort()).toEqual(["a", "b"]);
    expect(claimsMatch({ scope: ["a", "b"] }, token)).toBe(true);
    expect(claimsMatch({ scope: ["c"] }, token)).toBe(false);
  });

  it("reads no scope from other shapes, and never matches a listed scope with spaces in it", () => {
    expect([...scopesOf({ scope: 3, scp: { a: true } })]).toEqual([]);
    expect(claimsMatch({ scope: ["a"] }, { scp: ["a b"] })).toBe(false);
  });

  it("takes the first entry in file order", () => {
    const entries = [
      { label: "x", claims: { sub: "nobody" } },
      { label: "y", claims: { scope: ["a"] } },
      { label: "z", claims: {} },
    ];
    expect(matchPrincipal(entries, claims)?.label).toBe("y");
    expect(matchPrincipal(entries.slice(0, 1), claims)).toBeNull();
  });
});

describe("the resource server's metadata URL and challenge", () => {
  it("puts the resource's path after the well-known name (RFC 9728)", () => {
    expect(metadataUrl("https://h.example/mcp")).toBe(
      "https://h.example/.well-known/oauth-protected-resource/mcp",
    );
    expect(metadataUrl("https://h.example/")).toBe("https://h.example/.well-known/oauth-protected-resource");
  });
  it("quotes what it echoes, so a description cannot break out of the header", () => {
    const value = challenge(
      { issuers: [], audience: () => "https://h.example/mcp", scopes: ["s"] },
      { error: "invalid_token", description: 'bad "quote" \\ and\r\nnewline' },
    );
    expect(value).toBe(
      'Bearer resource_metadata="https://h.example/.well-known/oauth-protected-resource/mcp", scope="s", error="invalid_token", error_description="bad \\"quote\\" \\\\ and\\\\u000d\\\\u000anewline"',
    );
  });

  it("writes every character outside printable ASCII as \\uXXXX, so Node can always send the challenge", () => {
    const settings = { issuers: [], audience: () => "https://h.example/mcp", scopes: [] };
    const value = challenge(settings, {
      error: "invalid_token",
      description: 'issuer "http://é.example/用户" \u0000\u007f\u0085 \u{1f600}',
    });
    expect(value).toContain(
      'error_description="issuer \\"http://\\\\u00e9.example/\\\\u7528\\\\u6237\\" \\\\u0000\\\\u007f\\\\u0085 \\\\ud83d\\\\ude00"',
    );
    expect(value).toMatch(/^[\x20-\x7e]+$/);
    const response = new ServerResponse(new IncomingMessage(new Socket()));
    expect(() => response.setHeader("www-authenticate", value)).not.toThrow();
  });

  it("cuts a long description short rather than send a header clients refuse", () => {
    const settings = { issuers: [], audience: () => "https://h.example/mcp", scopes: [] };
    const value = challenge(settings, { error: "invalid_token", description: "x".repeat(20_000) });
    expect(value.length).toBeLessThan(700);
    expect(value).toContain(`${"x".repeat(500)}..."`);
  });
});
