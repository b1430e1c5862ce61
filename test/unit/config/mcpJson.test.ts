import { describe, expect, it } from "vitest";
import { emptyAllowedToolsMessage, parseMcpJson } from "../../../src/config/mcpJson.js";
import { serverNameProblem } from "../../../src/config/serverName.js";

const one = (entry: object, name = "github") =>
  parseMcpJson("mcp.json", JSON.stringify({ mcpServers: { [name]: entry } }, null, 2));

describe("mcp.json server entries", () => {
  it("reads a stdio server without type (the common client format)", () => {
    const r = one({ command: "npx", args: ["-y", "pkg"], env: { TOKEN: "t" } });
    expect(r.diagnostics).toEqual([]);
    expect(r.mcp.servers[0]).toMatchObject({
      name: "github",
      transport: "stdio",
      command: "npx",
      args: ["-y", "pkg"],
      env: { TOKEN: "t" },
      cwd: null,
      allowedTools: null,
    });
  });

  it.each(["stdio", "http", "sse"] as const)("reads type %s", (type) => {
    const entry =
      type === "stdio"
        ? { type, command: "x", cwd: "/tmp" }
        : { type, url: "https://h/mcp", headers: { A: "b" } };
    const r = one(entry);
    expect(r.diagnostics).toEqual([]);
    expect(r.mcp.servers[0]!.transport).toBe(type);
  });

  it("allowedTools on any transport keeps each pattern's line", () => {
    const text =
      '{\n  "mcpServers": {\n    "g": {\n      "type": "sse",\n      "url": "http://127.0.0.1:1/sse",\n      "allowedTools": [\n        "get_*",\n        "list_*"\n      ]\n    }\n  }\n}\n';
    const r = parseMcpJson("mcp.json", text);
    expect(r.diagnostics).toEqual([]);
    expect(r.mcp.servers[0]!.allowedTools!.map((p) => [p.source, p.at?.line, p.at?.path])).toEqual([
      ["get_*", 7, "mcpServers.g.allowedTools[0]"],
      ["list_*", 8, "mcpServers.g.allowedTools[1]"],
    ]);
    expect(r.mcp.servers[0]!.allowedToolsAt?.line).toBe(6);
  });

  it("an empty allowedTools list blocks everything and warns with the spec's words", () => {
    const r = one({ type: "http", url: "https://h/", allowedTools: [] });
    expect(r.mcp.servers[0]!.allowedTools).toEqual([]);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: "warning",
        code: "W_EMPTY_ALLOWED_TOOLS",
        message: `MCP server 'github' has an empty "allowedTools" list, so none of its tools will be callable`,
      }),
    ]);
    expect(emptyAllowedToolsMessage("x")).toBe(
      `MCP server 'x' has an empty "allowedTools" list, so none of its tools will be callable`,
    );
  });

  it.each([
    [{ url: "https://h/" }, "E_MCP_SERVER", 'has a "url" but no "type"'],
    [{ type: "ws", url: "wss://h" }, "E_MCP_SERVER", 'must be "stdio", "http" or "sse"'],
    [{ type: "stdio" }, "E_MCP_SERVER", 'needs a non-empty "command"'],
    [{ command: "" }, "E_MCP_SERVER", 'needs a non-empty "command"'],
    [{ type: "http" }, "E_MCP_SERVER", 'needs a "url"'],
    [{ type: "http", url: "file:///etc/passwd" }, "E_MCP_SERVER", "must be an http:// or https:// URL"],
    [{ command: ["npx"] }, "E_FIELD_TYPE", '"command" of server'],
    [{ command: "x", args: "a b" }, "E_FIELD_TYPE", '"args" of server'],
    [{ command: "x", env: { PORT: 1 } }, "E_FIELD_TYPE", '"env.PORT" of server'],
    [{ command: "x", allowedTools: "get_*" }, "E_FIELD_TYPE", "must be a list of tool-name patterns"],
  ])("rejects %j", (entry, code, text) => {
    const r = one(entry);
    const errors = r.diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => d.code)).toEqual([code]);
    expect(errors[0]!.message).toContain(text);
    expect(r.mcp.servers).toEqual([]);
  });

  it("warns about unknown fields and fields of another transport", () => {
    const r = one({ command: "x", url: "https://h/", disabled: true });
    expect(r.diagnostics.map((d) => [d.code, d.path]).sort()).toEqual([
      ["W_FIELD_IGNORED", "mcpServers.github.url"],
      ["W_UNKNOWN_FIELD", "mcpServers.github.disabled"],
    ]);
    expect(r.mcp.servers).toHaveLength(1);
  });

  it("needs an mcpServers object", () => {
    expect(parseMcpJson("mcp.json", "{}").diagnostics.map((d) => d.code)).toEqual(["E_MCP_JSON"]);
    expect(parseMcpJson("mcp.json", "").diagnostics.map((d) => d.code)).toEqual(["E_MCP_JSON"]);
    expect(parseMcpJson("mcp.json", "[]").diagnostics.map((d) => d.code)).toEqual(["E_MCP_JSON"]);
    expect(parseMcpJson("mcp.json", '{"mcpServers": []}').diagnostics.map((d) => d.code)).toEqual([
      "E_FIELD_TYPE",
    ]);
  });

  it("reports duplicate server names with their line", () => {
    const r = parseMcpJson("mcp.json", '{"mcpServers": {\n"a": {"command": "x"},\n"a": {"command": "y"}}}');
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([["E_DUPLICATE_KEY", 3]]);
  });
});

describe("server names", () => {
  it.each(["github", "pubmed-search", "fs_2", "A1", "x"])("accepts %s", (name) => {
    expect(serverNameProblem(name)).toBeNull();
  });
  it.each(["my server", "a__b", "a_", "_a", "-a", "a.b", "all", "", "é", "x".repeat(65)])(
    "rejects %j",
    (name) => {
      expect(serverNameProblem(name)).not.toBeNull();
    },
  );
  it("an invalid server name is an error naming its line", () => {
    const r = parseMcpJson("mcp.json", '{\n  "mcpServers": {\n    "a__b": {"command": "x"}\n  }\n}');
    expect(r.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["E_SERVER_NAME", 3, 5]]);
    expect(r.mcp.servers).toEqual([]);
  });
});

describe("mcp.json as clients write it", () => {
  it("takes comments and trailing commas (JSONC, as Claude Desktop, Cursor and VS Code accept)", () => {
    const text = `// my servers
{
  "mcpServers": {
    /* the filesystem */
    "fs": { "command": "npx", "args": ["-y", "server-filesystem", "/tmp",], },
  },
}
`;
    const r = parseMcpJson("mcp.json", text);
    expect(r.diagnostics).toEqual([]);
    expect(r.mcp.servers.map((s) => [s.name, s.at.line])).toEqual([["fs", 5]]);
  });

  it("takes VS Code's shape: servers (with inputs beside them)", () => {
    const text = JSON.stringify({
      inputs: [{ type: "promptString", id: "key", description: "API key", password: true }],
      servers: { memory: { type: "stdio", command: "npx", args: ["-y", "server-memory"] } },
    });
    const r = parseMcpJson(".vscode/mcp.json", text);
    expect(r.diagnostics).toEqual([]);
    expect(r.mcp.servers.map((s) => s.name)).toEqual(["memory"]);
    const both = parseMcpJson("mcp.json", '{"mcpServers": {}, "servers": {}}');
    expect(both.diagnostics.map((d) => [d.code, d.message.split(";")[0]])).toEqual([
      ["E_MCP_JSON", 'mcp.json has both "mcpServers" and "servers"'],
    ]);
  });

  it.each([
    [
      '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}',
      3,
      28,
      "expected ',' after this member",
    ],
    ['{\n  "mcpServers": {\n    "a": { "command": "x\n  }\n}', 3, 23, "a string is not closed"],
    ['{\n  "mcpServers": {\n    "a": { "command": "C:\\qbin" }\n  }\n}', 3, 23, "unknown escape in a string"],
    ['{\n  "mcpServers": {\n    a: { "command": "x" }\n  }\n}', 3, 5, "names and strings need double quotes"],
  ])("says what is wrong in JSON's words, at the line and column: %j", (text, line, column, words) => {
    const r = parseMcpJson("mcp.json", text);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: "E_SYNTAX", line, column });
    expect(r.diagnostics[0]!.message).toContain(words);
    expect(r.diagnostics[0]!.message).not.toMatch(/YAML|flow|collection|implicit/i);
  });
});

describe("startup_timeout", () => {
  it("is read as seconds; anything but a number above 0 (and at most a day) is an error naming the field", () => {
    const ok = parseMcpJson("mcp.json", '{"mcpServers":{"a":{"command":"x","startup_timeout":2.5}}}');
    expect(ok.diagnostics).toEqual([]);
    expect(ok.mcp.servers[0]!.startupTimeoutMs).toBe(2500);
    for (const bad of ['"60"', "0", "-1", "100000", "null"]) {
      const r = parseMcpJson("mcp.json", `{"mcpServers":{"a":{"command":"x","startup_timeout":${bad}}}}`);
      expect(r.diagnostics.map((d) => d.message).join("\n")).toContain(
        "\"startup_timeout\" of server 'a' must be",
      );
    }
  });
});
