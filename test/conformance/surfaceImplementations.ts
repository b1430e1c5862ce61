// The implementations of a Surface (see surfaces.ts): how each starts toolgate in front of the server and
// how the model sees the server through it — tool names, the list, the answer for a missing tool, the audit
// fields only serve writes — in the legacy era (the v1 SDK client) and in revision 2026-07-28 (the v2
// client, pinned).
import { join } from "node:path";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { configDir, mcpJson } from "../e2e/configDirHelpers.js";
import { writeFileSync } from "node:fs";
import { childPids, CLI, connect, NODE, outcome, ROOT, wrapCommand, writePolicy } from "../e2e/helpers.js";
import { serveHttp, TOKEN } from "../e2e/serveHelpers.js";
import type { AnyClient, ClientMaker, Outcome, StartOptions, SurfaceName, ToolResult } from "./surfaces.js";

/** Below SEARCH_TOP_K_MAX (src/serve/search.ts), a search without words lists every visible tool. */
const SEARCH_ALL = 20;

export interface Session {
  client: AnyClient;
  stderr: () => string;
  close: () => Promise<void>;
  /** Another client of the same gate, as another principal (serve --http with StartOptions.others). */
  connectAs?: (principal: string) => Promise<AnyClient>;
  /** The processes the gate runs now (serve --http). */
  serverProcesses?: () => number;
}

/** The bearer token of a principal of StartOptions.others (the client's own is TOKEN). */
const tokenOf = (principal: string): string => `${principal}-conformance-token-0123456789`;

/** What one surface is: how it is started, and how the model sees the server through it. */
export interface Surface {
  readonly name: SurfaceName;
  /** Starts toolgate in front of `shimmed` (the server behind the recording shim) and connects `client`. */
  launch(
    o: StartOptions,
    shimmed: string[],
    flags: string[],
    dir: string,
    clients: ClientMaker,
  ): Promise<Session>;
  /** The tools/call the model makes for the server's `tool`. */
  request(server: string, tool: string, args: Record<string, unknown>): { name: string; arguments: unknown };
  tools(client: AnyClient, server: string): Promise<string[]>;
  absentAnswer(o: StartOptions, tool: string): Promise<Outcome>;
  eventBase(server: string): Record<string, unknown>;
  calledAs(server: string, tool: string): string;
  readonly inServerOrder: boolean;
  readonly passesListChanged: boolean;
}

/** The answer the bare server gives a missing tool (wrap answers a hidden tool with it), by command. */
const bareUnknown = new Map<string, Promise<string>>();
async function bareAbsent(server: string[], tool: string): Promise<Outcome> {
  const key = JSON.stringify(server);
  if (!bareUnknown.has(key)) {
    const probe = async () => {
      const bare = await connect({ command: server[0]!, args: server.slice(1) });
      try {
        return JSON.stringify(
          await outcome(bare.client.callTool({ name: "zz-missing-tool", arguments: {} })),
        );
      } finally {
        await bare.close();
      }
    };
    bareUnknown.set(key, probe());
  }
  return JSON.parse((await bareUnknown.get(key)!).split("zz-missing-tool").join(tool)) as Outcome;
}

/** The bridged server's own answer for a missing tool, asked in revision 2026-07-28 (see WRAP_2026). */
const bridgedUnknown = new Map<string, Promise<string>>();
async function bridgedAbsent(server: string[], tool: string): Promise<Outcome> {
  const key = JSON.stringify(server);
  if (!bridgedUnknown.has(key)) {
    const probe = async () => {
      const client = new ModernClient(
        { name: "toolgate-conformance", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(new InPlaceStdio({ command: NODE, args: [ERA_BRIDGE, ...server], cwd: ROOT }));
      try {
        return JSON.stringify(await outcome(client.callTool({ name: "zz-missing-tool", arguments: {} })));
      } finally {
        await client.close();
      }
    };
    bridgedUnknown.set(key, probe());
  }
  return JSON.parse((await bridgedUnknown.get(key)!).split("zz-missing-tool").join(tool)) as Outcome;
}

const notFound = (text: string): Outcome => ({
  result: { content: [{ type: "text", text }], isError: true },
});

/** `client` over stdio to `command args` (run in the repository, its stderr kept). */
async function overStdio(
  clients: ClientMaker,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Session> {
  const environment = { ...getDefaultEnvironment(), ...env };
  const transport = new StdioClientTransport({ command, args, stderr: "pipe", cwd: ROOT, env: environment });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const client = clients.legacy();
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The v2 SDK's stdio transport, probing in place (its own class would start the command twice). */
class InPlaceStdio extends ModernStdioTransport {}

/** As overStdio, with the v2 client pinned to revision 2026-07-28. */
async function overStdioModern(
  clients: ClientMaker,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Session> {
  const environment = { ...getDefaultEnvironment(), ...env };
  const transport = new InPlaceStdio({ command, args, stderr: "pipe", cwd: ROOT, env: environment });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const client = clients.modern();
  await client.connect(transport);
  return { client: client as unknown as AnyClient, stderr: () => stderr, close: () => client.close() };
}

/** A configuration directory whose mcp.json has the shimmed server as its one entry, and the policy. */
function serveFlags(o: StartOptions, shimmed: string[], flags: string[]): string[] {
  const cfg = configDir({
    "mcp.json": mcpJson({
      [o.name]: { command: shimmed[0], args: shimmed.slice(1), ...(o.env && { env: o.env }) },
    }),
    "config.yaml": "enabled_mcp_servers: all\n",
    "policy.yaml": o.policy,
  });
  return ["--config-dir", cfg, "--policy", join(cfg, "policy.yaml"), ...flags];
}

/** wrap: the server's own names; a hidden tool gets the bare server's own answer for a missing one. */
const wrapped = (name: "wrap" | "wrap-2026"): Omit<Surface, "launch"> => ({
  name,
  request: (_server, tool, args) => ({ name: tool, arguments: args }),
  tools: async (client) => (await client.listTools()).tools.map((t) => t.name),
  absentAnswer: (o, tool) => bareAbsent(o.server, tool),
  eventBase: () => ({}),
  calledAs: (_server, tool) => tool,
  inServerOrder: true,
  passesListChanged: name === "wrap",
});

const WRAP: Surface = {
  ...wrapped("wrap"),
  launch: (o, shimmed, flags, dir, clients) => {
    const spec = wrapCommand(["--policy", writePolicy(dir, o.policy), "--label", o.name, ...flags], shimmed);
    return overStdio(clients, spec.command, spec.args, o.env);
  },
};

/**
 * wrap with a client of revision 2026-07-28. wrap passes the era through, so the server must speak it: the
 * real (legacy-only) server runs behind fixtures/eraBridge.mjs, a v2-SDK server forwarding its tools verbatim.
 */
const WRAP_2026: Surface = {
  ...wrapped("wrap-2026"),
  absentAnswer: (o, tool) => bridgedAbsent(o.server, tool),
  launch: (o, shimmed, flags, dir, clients) => {
    const spec = wrapCommand(
      ["--policy", writePolicy(dir, o.policy), "--label", o.name, ...flags],
      [NODE, ERA_BRIDGE, ...shimmed],
    );
    return overStdioModern(clients, spec.command, spec.args, o.env);
  },
};
const ERA_BRIDGE = join(ROOT, "test/conformance/fixtures/eraBridge.mjs");

/** serve in direct mode: `<server>__<tool>`; a listed name without the prefix is kept, marked, to fail. */
const direct = (
  name: "serve-direct" | "serve-http" | "serve-direct-2026" | "serve-http-2026",
): Omit<Surface, "launch"> => ({
  name,
  request: (server, tool, args) => ({ name: `${server}__${tool}`, arguments: args }),
  tools: async (client, server) =>
    (await client.listTools()).tools.map((t) =>
      t.name.startsWith(`${server}__`) ? t.name.slice(server.length + 2) : `!${t.name}`,
    ),
  // The answer of the SDK line the client's era is served like: v1's error result, v2's Invalid params.
  absentAnswer: async (o, tool) =>
    name.endsWith("-2026")
      ? { error: { code: -32602, message: `Tool ${o.name}__${tool} not found` } }
      : notFound(`MCP error -32602: Tool ${o.name}__${tool} not found`),
  eventBase: (server) => ({ server, client: name.startsWith("serve-http") ? "token" : "stdio" }),
  calledAs: (server, tool) => `${server}__${tool}`,
  inServerOrder: true,
  // A modern client hears of changes only on a subscriptions/listen stream, which these clients do not open.
  passesListChanged: !name.endsWith("-2026"),
});

const SERVE_DIRECT: Surface = {
  ...direct("serve-direct"),
  launch: (o, shimmed, flags, _dir, clients) =>
    overStdio(clients, NODE, [CLI, "serve", "--stdio", ...serveFlags(o, shimmed, flags)]),
};

/** serve --http with a client of either SDK line over Streamable HTTP, with a bearer token. */
function httpSurface(name: "serve-http" | "serve-http-2026", era: "legacy" | "modern"): Surface {
  return {
    ...direct(name),
    launch: async (o, shimmed, flags, dir, clients) => {
      const cfgFlags = serveFlags(o, shimmed, flags);
      // With other principals: a tokens file, the client's own entry named `token` as --token names it.
      let credentials = ["--token", TOKEN];
      if (o.others !== undefined) {
        const file = join(dir, "tokens.yaml");
        const entries = [["token", TOKEN], ...o.others.map((p) => [p, tokenOf(p)])];
        writeFileSync(file, entries.map(([name, token]) => `- name: ${name}\n  token: ${token}\n`).join(""));
        credentials = ["--tokens", file];
      }
      const serve = await serveHttp(cfgFlags[1]!, [...credentials, ...cfgFlags.slice(2)]);
      const url = new URL(serve.url);
      const connectWith = async (token: string): Promise<AnyClient> => {
        const requestInit = { headers: { Authorization: `Bearer ${token}` } };
        if (era === "legacy") {
          const legacy = clients.legacy();
          await legacy.connect(new StreamableHTTPClientTransport(url, { requestInit }));
          return legacy;
        }
        const modern = clients.modern();
        await modern.connect(new ModernHttpTransport(url, { requestInit }));
        return modern as unknown as AnyClient;
      };
      let client: AnyClient;
      try {
        client = await connectWith(TOKEN);
      } catch (error) {
        await serve.stop();
        throw error;
      }
      const close = async () => {
        await client.close().catch(() => {});
        await serve.stop();
      };
      return {
        client,
        stderr: serve.stderr,
        close,
        connectAs: (principal) => connectWith(tokenOf(principal)),
        serverProcesses: () => childPids(serve.proc.pid!).length,
      };
    },
  };
}

const SERVE_HTTP = httpSurface("serve-http", "legacy");

const SERVE_DIRECT_2026: Surface = {
  ...direct("serve-direct-2026"),
  launch: (o, shimmed, flags, _dir, clients) =>
    overStdioModern(clients, NODE, [CLI, "serve", "--stdio", ...serveFlags(o, shimmed, flags)]),
};

const SERVE_HTTP_2026 = httpSurface("serve-http-2026", "modern");

const SERVE_META: Surface = {
  name: "serve-meta",
  launch: (o, shimmed, flags, _dir, clients) =>
    overStdio(clients, NODE, [CLI, "serve", "--stdio", "--mode", "meta", ...serveFlags(o, shimmed, flags)]),
  request: (server, tool, args) => ({ name: `mcp_invoke_${server}`, arguments: { tool, arguments: args } }),
  tools: async (client, server) => {
    const found = (await client.callTool({
      name: `mcp_search_${server}`,
      arguments: { query: "", top_k: SEARCH_ALL },
    })) as ToolResult;
    if (found.isError === true) throw new Error(`search failed: ${JSON.stringify(found)}`);
    const names = (found.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    if (names.length >= SEARCH_ALL) throw new Error("the search came back full: the list may be cut");
    return names;
  },
  absentAnswer: async (o, tool) => notFound(`${tool} not found in ${o.name} MCP server catalog`),
  eventBase: (server) => ({ server, client: "stdio", via: `mcp_invoke_${server}` }),
  calledAs: (server, tool) => `mcp_invoke_${server} ${tool}`,
  inServerOrder: false,
  passesListChanged: false,
};

export const IMPLEMENTATIONS: Record<SurfaceName, Surface> = {
  wrap: WRAP,
  "wrap-2026": WRAP_2026,
  "serve-direct": SERVE_DIRECT,
  "serve-meta": SERVE_META,
  "serve-http": SERVE_HTTP,
  "serve-direct-2026": SERVE_DIRECT_2026,
  "serve-http-2026": SERVE_HTTP_2026,
};
