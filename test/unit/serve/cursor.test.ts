import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../../src/serve/cursor.js";

const servers = ["everything", "filesystem", "memory"];

describe("aggregated list cursors", () => {
  it("round-trip for the session's servers", () => {
    fc.assert(
      fc.property(fc.constantFrom(...servers), fc.option(fc.string(), { nil: null }), (server, cursor) => {
        expect(decodeCursor(encodeCursor({ server, cursor }), servers)).toEqual({ server, cursor });
      }),
    );
  });

  it.each([
    ["a server of another session", encodeCursor({ server: "github", cursor: null })],
    ["not base64url", "abc+/="],
    ["not JSON", Buffer.from("nope").toString("base64url")],
    ["the wrong shape", Buffer.from(JSON.stringify({ s: "memory" })).toString("base64url")],
    ["a non-string cursor", Buffer.from(JSON.stringify(["memory", 5])).toString("base64url")],
    ["empty", ""],
  ])("refuse %s", (_what, text) => {
    expect(decodeCursor(text, servers)).toBeNull();
  });
});
