import { describe, expect, it } from "vitest";
import {
  describeResult,
  invalidArgumentsResult,
  metaToolDefinitions,
  notInCatalogResult,
  readMetaArguments,
  searchResult,
} from "../../../src/serve/metaTools.js";

describe("meta tool definitions", () => {
  it("are the spec's three tools per server", () => {
    const defs = metaToolDefinitions("github");
    expect(defs.map((d) => d.name)).toEqual([
      "mcp_search_github",
      "mcp_describe_github",
      "mcp_invoke_github",
    ]);
    expect(defs[0]!.inputSchema).toMatchObject({
      required: ["query"],
      properties: { top_k: { type: "integer", minimum: 1, maximum: 20, default: 5 } },
    });
  });
});

describe("readMetaArguments", () => {
  it.each<[string, "search" | "describe" | "invoke", unknown, unknown]>([
    ["search default top_k", "search", { query: "x" }, { kind: "search", query: "x", topK: 5 }],
    ["search top_k 20", "search", { query: "x", top_k: 20 }, { kind: "search", query: "x", topK: 20 }],
    ["describe", "describe", { tool: "t" }, { kind: "describe", tool: "t" }],
    [
      "invoke without arguments",
      "invoke",
      { tool: "t" },
      { kind: "invoke", tool: "t", arguments: undefined },
    ],
    [
      "invoke",
      "invoke",
      { tool: "t", arguments: { a: 1 } },
      { kind: "invoke", tool: "t", arguments: { a: 1 } },
    ],
  ])("accepts %s", (_what, kind, args, expected) => {
    expect(readMetaArguments(kind, args)).toEqual({ ok: true, value: expected });
  });

  it.each<[string, "search" | "describe" | "invoke", unknown, string]>([
    ["top_k 21", "search", { query: "x", top_k: 21 }, "'top_k' must be an integer from 1 to 20"],
    ["top_k 0", "search", { query: "x", top_k: 0 }, "'top_k' must be an integer from 1 to 20"],
    ["top_k 2.5", "search", { query: "x", top_k: 2.5 }, "'top_k' must be an integer from 1 to 20"],
    ["no query", "search", {}, "'query' must be a string"],
    ["tool not a string", "describe", { tool: 3 }, "'tool' must be a string"],
    ["arguments an array", "invoke", { tool: "t", arguments: [] }, "'arguments' must be an object"],
    ["an unknown key", "describe", { tool: "t", extra: 1 }, "unknown argument 'extra' (accepted: tool)"],
    ["arguments not an object", "search", "x", "arguments must be an object"],
  ])("refuses %s", (_what, kind, args, message) => {
    expect(readMetaArguments(kind, args)).toEqual({ ok: false, message });
  });
});

describe("meta results", () => {
  it("hidden and missing tools get the spec's text", () => {
    expect(notInCatalogResult("delete_repo", "github")).toEqual({
      content: [{ type: "text", text: "delete_repo not found in github MCP server catalog" }],
      isError: true,
    });
  });

  it("input errors read like an SDK server's", () => {
    expect(invalidArgumentsResult("mcp_search_x", "'query' must be a string")).toEqual({
      content: [
        {
          type: "text",
          text: "MCP error -32602: Input validation error: Invalid arguments for tool mcp_search_x: 'query' must be a string",
        },
      ],
      isError: true,
    });
  });

  it("search and describe results carry the same data as text and structured content", () => {
    const search = searchResult([{ name: "a", description: "d", score: 3 }]);
    expect(search.structuredContent).toEqual({ tools: [{ name: "a", description: "d" }] });
    expect(JSON.parse((search.content as Array<{ text: string }>)[0]!.text)).toEqual(
      search.structuredContent,
    );
    const schema = { type: "object", properties: { p: { type: "string" } } };
    const describe = describeResult({ name: "a", inputSchema: schema, outputSchema: { type: "object" } });
    expect(describe.structuredContent).toEqual({
      name: "a",
      description: "",
      inputSchema: schema,
      outputSchema: { type: "object" },
    });
  });
});
