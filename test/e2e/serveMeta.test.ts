// toolgate serve --mode meta: the spec's mcp_search_/mcp_describe_/mcp_invoke_<server> in front of the three
// real servers; hidden tools are absent from search and fail describe and invoke exactly like missing ones,
// without reaching the server.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Connected } from "./helpers.js";
import { serveStdio, serveWorld, textOf, type ServeWorld, type ToolText } from "./serveHelpers.js";

let world: ServeWorld;
let served: Connected;

beforeAll(async () => {
  world = serveWorld();
  served = await serveStdio(world.dir, ["--mode", "meta"]);
});

afterAll(async () => {
  await served?.close();
});

async function search(server: string, query: string, topK?: number): Promise<string[]> {
  const args: Record<string, unknown> = { query };
  if (topK !== undefined) args.top_k = topK;
  const result = (await served.client.callTool({
    name: `mcp_search_${server}`,
    arguments: args,
  })) as ToolText;
  expect(result.isError).toBeUndefined();
  return (result.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
}

describe("serve --mode meta", () => {
  it("lists three meta tools per enabled server and nothing else", async () => {
    const names = (await served.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([
      "mcp_search_everything",
      "mcp_describe_everything",
      "mcp_invoke_everything",
      "mcp_search_fs",
      "mcp_describe_fs",
      "mcp_invoke_fs",
      "mcp_search_memory",
      "mcp_describe_memory",
      "mcp_invoke_memory",
    ]);
  });

  it("searches only visible tools, best match first, at most top_k", async () => {
    expect((await search("fs", "read text file"))[0]).toBe("read_text_file");
    const everything = await search("memory", "", 20);
    expect(everything.sort()).toEqual(["open_nodes", "read_graph", "search_nodes"]);
    expect(await search("memory", "create entities relations")).toEqual([]);
    expect(await search("fs", "directory edit move create")).not.toContain("create_directory");
    expect((await search("everything", "e", 2)).length).toBe(2);
    const tooMany = (await served.client.callTool({
      name: "mcp_search_fs",
      arguments: { query: "x", top_k: 21 },
    })) as ToolText;
    expect(tooMany).toEqual({
      content: [
        {
          type: "text",
          text: "MCP error -32602: Input validation error: Invalid arguments for tool mcp_search_fs: 'top_k' must be an integer from 1 to 20",
        },
      ],
      isError: true,
    });
  });

  it("describes a visible tool with its input schema", async () => {
    const result = (await served.client.callTool({
      name: "mcp_describe_fs",
      arguments: { tool: "read_text_file" },
    })) as ToolText;
    const described = result.structuredContent as {
      name: string;
      description: string;
      inputSchema: { properties: object };
    };
    expect(described.name).toBe("read_text_file");
    expect(described.inputSchema.properties).toHaveProperty("path");
  });

  it("fails describe and invoke of hidden and missing tools with the spec's words, reaching no server", async () => {
    const notFound = (tool: string, server: string) => ({
      content: [{ type: "text", text: `${tool} not found in ${server} MCP server catalog` }],
      isError: true,
    });
    for (const [server, tool] of [
      ["memory", "create_entities"],
      ["memory", "no_such_tool"],
      ["fs", "create_directory"],
      ["fs", "edit_file"],
    ] as const) {
      expect(await served.client.callTool({ name: `mcp_describe_${server}`, arguments: { tool } })).toEqual(
        notFound(tool, server),
      );
    }
    const dir = join(world.fsRoot, "by-meta");
    expect(
      await served.client.callTool({
        name: "mcp_invoke_fs",
        arguments: { tool: "create_directory", arguments: { path: dir } },
      }),
    ).toEqual(notFound("create_directory", "fs"));
    expect(
      await served.client.callTool({
        name: "mcp_invoke_memory",
        arguments: {
          tool: "create_entities",
          arguments: { entities: [{ name: "Eve", entityType: "p", observations: [] }] },
        },
      }),
    ).toEqual(notFound("create_entities", "memory"));
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(world.memoryFile)).toBe(false);
    expect(
      textOf(
        await served.client.callTool({
          name: "mcp_invoke_memory",
          arguments: { tool: "read_graph", arguments: {} },
        }),
      ),
    ).not.toContain("Eve");
  });

  it("invokes visible tools", async () => {
    const echo = await served.client.callTool({
      name: "mcp_invoke_everything",
      arguments: { tool: "echo", arguments: { message: "meta" } },
    });
    expect(echo).toEqual({ content: [{ type: "text", text: "Echo: meta" }] });
    const read = await served.client.callTool({
      name: "mcp_invoke_fs",
      arguments: { tool: "read_text_file", arguments: { path: join(world.fsRoot, "hello.txt") } },
    });
    expect(textOf(read)).toBe("hello from the served directory\n");
  });

  it("answers meta tools of servers that are not enabled like any unknown tool", async () => {
    expect(await served.client.callTool({ name: "mcp_search_github", arguments: { query: "x" } })).toEqual({
      content: [{ type: "text", text: "MCP error -32602: Tool mcp_search_github not found" }],
      isError: true,
    });
  });
});
