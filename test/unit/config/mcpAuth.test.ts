// mcp.json's `auth` of a remote server: the three kinds read as they are written, every mistake refused
// with its file, line and field and a hint, and a user's token never on a connection every principal shares.
import { describe, expect, it } from "vitest";
import { parseMcpJson } from "../../../src/config/mcpJson.js";

const one = (entry: object, name = "jira") =>
  parseMcpJson("mcp.json", JSON.stringify({ mcpServers: { [name]: entry } }, null, 2));
const remote = (auth: unknown, extra: object = {}) =>
  one({ type: "http", url: "https://jira-mcp.example.com/mcp", auth, ...extra });
const exchange = {
  type: "token_exchange",
  audience: "https://jira-mcp.example.com",
  client_id: "toolgate",
  client_secret_env: "TOOLGATE_IDP_SECRET",
};

describe("mcp.json auth", () => {
  it("reads token_exchange, with the token endpoint found at the principal's issuer when not given", () => {
    const r = remote({ ...exchange, scope: "jira:read" });
    expect(r.diagnostics).toEqual([]);
    expect(r.mcp.servers[0]).toMatchObject({
      auth: {
        type: "token_exchange",
        tokenEndpoint: null,
        audience: "https://jira-mcp.example.com",
        scope: "jira:read",
        clientId: "toolgate",
        clientSecretEnv: "TOOLGATE_IDP_SECRET",
        clientSecretEnvAt: { file: "mcp.json", path: "mcpServers.jira.auth.client_secret_env" },
      },
    });
  });

  it("reads client_credentials with its token endpoint", () => {
    const r = remote({
      type: "client_credentials",
      token_endpoint: "https://idp.example.com/token",
      client_id: "toolgate",
      client_secret_env: "S",
      audience: "jira",
    });
    expect(r.diagnostics).toEqual([]);
    expect(r.mcp.servers[0]).toMatchObject({
      auth: { type: "client_credentials", tokenEndpoint: "https://idp.example.com/token", audience: "jira" },
    });
  });

  it("static auth is today's headers", () => {
    const r = remote({ type: "static", headers: { Authorization: "Bearer abc" } }, { headers: { X: "1" } });
    expect(r.diagnostics).toEqual([]);
    const server = r.mcp.servers[0]!;
    expect(server).toMatchObject({ headers: { X: "1", Authorization: "Bearer abc" } });
    expect("auth" in server).toBe(false);
  });

  it.each([
    [{ ...exchange, audience: undefined }, "E_MCP_SERVER", 'needs "audience"', "mcpServers.jira.auth"],
    [
      { ...exchange, client_id: 7 },
      "E_FIELD_TYPE",
      "\"auth.client_id\" of server 'jira' must be a non-empty string",
      "mcpServers.jira.auth.client_id",
    ],
    [
      { ...exchange, client_secret_env: "s3cr3t value!" },
      "E_MCP_SERVER",
      "must name an environment variable",
      "mcpServers.jira.auth.client_secret_env",
    ],
    [
      { ...exchange, token_endpoint: "http://idp.example.com/token" },
      "E_MCP_SERVER",
      "must be an https:// URL",
      "mcpServers.jira.auth.token_endpoint",
    ],
    [
      { ...exchange, type: "passthrough" },
      "E_MCP_SERVER",
      'must be "token_exchange", "client_credentials" or "static"',
      "mcpServers.jira.auth.type",
    ],
    [
      { type: "client_credentials", client_id: "t", client_secret_env: "S" },
      "E_MCP_SERVER",
      'needs "token_endpoint"',
      "mcpServers.jira.auth",
    ],
    [{ type: "static" }, "E_MCP_SERVER", 'needs "headers"', "mcpServers.jira.auth"],
    ["token_exchange", "E_FIELD_TYPE", "\"auth\" of server 'jira' must be an object", "mcpServers.jira.auth"],
  ])("refuses %j with %s naming the field", (auth, code, text, path) => {
    const r = remote(JSON.parse(JSON.stringify(auth)));
    expect(r.mcp.servers).toEqual([]);
    const errors = r.diagnostics.filter((d) => d.severity === "error");
    expect(errors).toEqual([expect.objectContaining({ code, path, file: "mcp.json" })]);
    expect(errors[0]!.message).toContain(text);
    expect(errors[0]!.line).toBeGreaterThan(0);
  });

  it('"share": "all" with token_exchange is an error at the share field, with what to write instead', () => {
    const r = remote(exchange, { share: "all" });
    expect(r.mcp.servers).toEqual([]);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "E_MCP_SERVER",
        path: "mcpServers.jira.share",
        hint: expect.stringContaining('"share": "principal"'),
      }),
    ]);
    expect(remote(exchange, { share: "session" }).diagnostics).toEqual([]);
    // The gateway's own identity may be shared by everybody.
    const own = {
      type: "client_credentials",
      token_endpoint: "https://idp/t",
      client_id: "t",
      client_secret_env: "S",
    };
    expect(remote(own, { share: "all" }).diagnostics).toEqual([]);
  });

  it("an Authorization header beside token auth is refused: it would be replaced", () => {
    const r = remote(exchange, { headers: { authorization: "Bearer x" } });
    expect(r.mcp.servers).toEqual([]);
    expect(r.diagnostics[0]).toMatchObject({
      code: "E_MCP_SERVER",
      hint: 'remove "authorization" from "headers"',
    });
  });

  it("plain http token endpoints only on loopback; unknown auth fields warn", () => {
    const r = remote({ ...exchange, token_endpoint: "http://127.0.0.1:8080/token", audiance: "x" });
    expect(r.mcp.servers).toHaveLength(1);
    expect(r.diagnostics).toEqual([
      expect.objectContaining({
        severity: "warning",
        code: "W_UNKNOWN_FIELD",
        path: "mcpServers.jira.auth.audiance",
      }),
    ]);
  });

  it("auth on a stdio server does not apply", () => {
    const r = one({ command: "x", auth: exchange });
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: "W_FIELD_IGNORED" })]);
  });
});
