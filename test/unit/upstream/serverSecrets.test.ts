// What mcp.json configures for reaching a server is never written back out: not in a log line, not in an
// error or result relayed to a client.
import { describe, expect, it } from "vitest";
import type { McpServerConfig } from "../../../src/engine/model/mcpServers.js";
import { SecretScrubber, serverSecrets } from "../../../src/upstream/serverSecrets.js";

const at = { file: "mcp.json", path: "mcpServers.x", line: 1, column: 1 };
const remote: McpServerConfig = {
  name: "remote",
  at,
  transport: "http",
  url: "https://user:PASSWORD-123@api.example.com/mcp?key=QUERY-SECRET&plain=1",
  headers: { Authorization: "Bearer HEADER-TOKEN-xyz", "X-Api-Key": "KEY-4567" },
  allowedTools: null,
  allowedToolsAt: null,
};
const local: McpServerConfig = {
  name: "local",
  at,
  transport: "stdio",
  command: "node",
  args: ["server.js"],
  env: { GITHUB_TOKEN: "ghp_abcdefgh", MEMORY_FILE_PATH: "/tmp/memory.json" },
  cwd: null,
  allowedTools: null,
  allowedToolsAt: null,
};

describe("serverSecrets", () => {
  it("takes URL userinfo, query values, header values (and a bearer's token), secret-named env values", () => {
    expect(serverSecrets(remote)).toEqual(
      expect.arrayContaining([
        "user",
        "PASSWORD-123",
        "QUERY-SECRET",
        "Bearer HEADER-TOKEN-xyz",
        "HEADER-TOKEN-xyz",
        "KEY-4567",
      ]),
    );
    expect(serverSecrets(local)).toEqual(["ghp_abcdefgh"]);
  });
});

describe("SecretScrubber", () => {
  const scrubber = new SecretScrubber([remote, local]);
  it("scrubs them as written, URL-encoded and inside JSON text", () => {
    const echoed = `GET ${remote.url} failed; auth=HEADER-TOKEN-xyz; ${encodeURIComponent("PASSWORD-123")} ghp_abcdefgh`;
    const text = scrubber.text(echoed);
    for (const secret of ["PASSWORD-123", "QUERY-SECRET", "HEADER-TOKEN-xyz", "ghp_abcdefgh"]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain("api.example.com");
    const result = scrubber.json({
      content: [{ type: "text", text: JSON.stringify({ key: "QUERY-SECRET" }) }],
    });
    expect(JSON.stringify(result)).not.toContain("QUERY-SECRET");
  });

  it("hands back the same object when nothing is secret", () => {
    const value = { content: [{ type: "text", text: "fine" }] };
    expect(scrubber.json(value)).toBe(value);
    expect(new SecretScrubber([]).empty).toBe(true);
  });
});
