import { describe, expect, it } from "vitest";
import { claimsMatch, matchPrincipal } from "../../../src/auth/principals.js";
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
      'Bearer resource_metadata="https://h.example/.well-known/oauth-protected-resource/mcp", scope="s", error="invalid_token", error_description="bad \\"quote\\" \\\\ and  newline"',
    );
  });
});
