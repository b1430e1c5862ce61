// An in-process MCP server standing in for an upstream: it lists the given tools, records every call that
// reaches it and answers `ran <tool>`. Connected through the SDK's in-memory transport, so serve's routing is
// tested with the real SDK client (the v2 line serve uses) and server, without processes.
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { Server } from "@modelcontextprotocol/server";
import { upstreamClient } from "../../../src/upstream/upstream.js";
import type { McpServerConfig } from "../../../src/engine/model/mcpServers.js";
import type { Upstream, UpstreamOptions } from "../../../src/upstream/upstream.js";
import { ProgressTap } from "../../../src/upstream/progressTap.js";

export interface FakeCatalogs {
  /** Tool names per server. */
  tools: Record<string, string[]>;
  /** Every call that reached a server, as `<server>:<tool>`. */
  executed: string[];
}

export function stdioConfig(name: string): McpServerConfig {
  return {
    name,
    at: { file: "mcp.json", path: `mcpServers.${name}`, line: 1, column: 1 },
    transport: "stdio",
    command: "fake",
    args: [],
    env: {},
    cwd: null,
    allowedTools: null,
    allowedToolsAt: null,
  };
}

export function fakeConnect(catalogs: FakeCatalogs) {
  return async (config: McpServerConfig, options: UpstreamOptions): Promise<Upstream> => {
    const server = new Server({ name: `fake-${config.name}`, version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async () => ({
      tools: (catalogs.tools[config.name] ?? []).map((name) => ({
        name,
        description: `tool ${name}`,
        inputSchema: { type: "object" as const },
      })),
    }));
    server.setRequestHandler("tools/call", async (request) => {
      catalogs.executed.push(`${config.name}:${request.params.name}`);
      return { content: [{ type: "text" as const, text: `ran ${request.params.name}` }] };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = upstreamClient({ name: "toolgate", version: "0" }, options.capabilities ?? {}, 5000);
    let markClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => (markClosed = resolve));
    client.onclose = () => markClosed();
    options.setup?.(client);
    await client.connect(clientSide);
    return {
      name: config.name,
      transport: "stdio",
      client,
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: { name: `fake-${config.name}`, version: "1" },
      instructions: undefined,
      pid: () => null,
      stderrText: () => "",
      listAllTools: async () => (await client.listTools()).tools as never,
      listToolCatalog: async () => ({
        tools: (await client.listTools()).tools as never,
        pageTexts: [undefined],
      }),
      listToolsPage: async (cursor) => ({
        result: await client.listTools(cursor === undefined ? {} : { cursor }),
      }),
      progress: new ProgressTap(clientSide),
      closed,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  };
}
