import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serverNameProblem } from "../../../src/config/serverName.js";
import {
  assertDistinctNames,
  exposedName,
  exposedResourceUri,
  metaToolName,
  parseMetaToolName,
  splitExposedName,
  splitResourceUri,
} from "../../../src/serve/naming.js";

describe("exposed tool and prompt names", () => {
  it.each<[string, { server: string; name: string } | null]>([
    ["github__get_issue", { server: "github", name: "get_issue" }],
    ["a__b__c", { server: "a", name: "b__c" }],
    ["a___x", { server: "a", name: "_x" }],
    ["my-server__tool", { server: "my-server", name: "tool" }],
    ["__tool", null],
    ["server__", null],
    ["no_separator", null],
    ["", null],
  ])("%s splits to %j", (exposed, expected) => {
    expect(splitExposedName(exposed)).toEqual(expected);
  });

  const serverName = fc
    .stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,12}$/)
    .filter((s) => serverNameProblem(s) === null);
  const toolName = fc.string({ minLength: 1, maxLength: 20 });

  it("round-trips for every valid server name and any non-empty tool name", () => {
    fc.assert(
      fc.property(serverName, toolName, (server, name) => {
        expect(splitExposedName(exposedName(server, name))).toEqual({ server, name });
      }),
    );
  });

  it("is injective: two different (server, tool) pairs never get the same name", () => {
    fc.assert(
      fc.property(serverName, toolName, serverName, toolName, (s1, t1, s2, t2) => {
        fc.pre(s1 !== s2 || t1 !== t2);
        expect(exposedName(s1, t1)).not.toBe(exposedName(s2, t2));
      }),
    );
  });
});

describe("meta tool names", () => {
  it.each([
    ["mcp_search_github", { kind: "search", server: "github" }],
    ["mcp_describe_my_server", { kind: "describe", server: "my_server" }],
    ["mcp_invoke_x", { kind: "invoke", server: "x" }],
    ["mcp_invoke_", null],
    ["mcp_list_github", null],
    ["github__mcp_search_x", null],
  ])("%s parses to %j", (name, expected) => {
    expect(parseMetaToolName(name)).toEqual(expected);
  });

  it("parses what it builds", () => {
    for (const kind of ["search", "describe", "invoke"] as const) {
      expect(parseMetaToolName(metaToolName(kind, "srv-1"))).toEqual({ kind, server: "srv-1" });
    }
  });
});

describe("resource URIs", () => {
  it.each<[string, string]>([
    ["everything", "test://static/resource/1"],
    ["fs", "file:///tmp/a b/c.txt"],
    ["everything", "test://static/resource/{id}"],
    ["nested", "toolgate://inner/x://y"],
    ["q", "http://example.com/a?b=c#d"],
  ])("%s + %s round-trips", (server, uri) => {
    const exposed = exposedResourceUri(server, uri);
    expect(exposed.startsWith("toolgate://")).toBe(true);
    expect(splitResourceUri(exposed)).toEqual({ server, uri });
  });

  it.each(["test://static/resource/1", "toolgate://", "toolgate:///x", "toolgate://srv", "toolgate://srv/"])(
    "%s is not a toolgate URI",
    (uri) => {
      expect(splitResourceUri(uri)).toBeNull();
    },
  );
});

describe("assertDistinctNames", () => {
  it("accepts distinct names", () => {
    expect(() =>
      assertDistinctNames([
        { exposed: "a__x", origin: "tool 'x' of 'a'" },
        { exposed: "b__x", origin: "tool 'x' of 'b'" },
      ]),
    ).not.toThrow();
  });

  it("refuses a collision and names both origins", () => {
    expect(() =>
      assertDistinctNames([
        { exposed: "a__x", origin: "tool 'x' of 'a'" },
        { exposed: "a__x", origin: "prompt 'x' of 'a'" },
      ]),
    ).toThrow(/'a__x' would name both tool 'x' of 'a' and prompt 'x' of 'a'/);
  });
});
