import { describe, expect, it } from "vitest";
import { recordOf } from "../../../src/replay/records.js";

const call = (extra: Record<string, unknown>) => ({
  event: "tools/call",
  session: "s1",
  tool: "read",
  decision: "allow",
  code: null,
  rule: null,
  args_sha256: "ab".repeat(32),
  ...extra,
});

describe("recordOf", () => {
  it("reads the recorded arguments: args, else args_redacted, else none when args_sha256 is null", () => {
    expect(recordOf(call({ args: { path: "a" } }))).toMatchObject({ args: { value: { path: "a" } } });
    expect(recordOf(call({ args_redacted: { path: "***" } }))).toMatchObject({
      args: { value: { path: "***" } },
    });
    expect(recordOf(call({ args_sha256: null }))).toMatchObject({ args: { value: undefined } });
    expect(recordOf(call({}))).not.toHaveProperty("args");
  });

  it("maps dry-run outcomes, principals and servers", () => {
    expect(recordOf(call({ decision: "would-deny", code: "E_ARG_SCHEMA" }))).toMatchObject({
      outcome: "deny",
      principal: "stdio",
      server: null,
    });
    expect(
      recordOf(
        call({
          decision: "would-hide",
          code: "E_TOOL_NOT_ALLOWED",
          server: "fs",
          client: "ci",
          principal: "ci (x)",
        }),
      ),
    ).toMatchObject({
      outcome: "hidden",
      server: "fs",
      principal: "ci (x)",
    });
  });

  it("skips what no policy decided, and events that are not calls or lists", () => {
    expect(recordOf(call({ decision: "deny", code: "E_UPSTREAM_UNAVAILABLE" }))).toBeNull();
    expect(recordOf(call({ decision: "hidden" }))).toBeNull(); // not in the server's catalog
    expect(recordOf(call({ via: "mcp_describe_fs" }))).toBeNull();
    expect(recordOf({ event: "request", session: "s" })).toBeNull();
  });

  it("names what is wrong with an event it cannot use", () => {
    expect(recordOf(call({ tool: 3 }))).toMatch(/`tool` is not a string/);
    expect(recordOf(call({ decision: "maybe" }))).toMatch(/`decision`/);
    expect(recordOf({ event: "tools/list", session: "s", hidden_tools: "x" })).toMatch(/hidden_tools/);
  });
});
