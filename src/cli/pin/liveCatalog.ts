import type { Implementation } from "@modelcontextprotocol/client";
import type { McpServerConfig } from "../../engine/model/mcpServers.js";
import { ToolgateError } from "../../engine/errors.js";
import { recordingTransport, type RecordingTarget } from "../../upstream/rawRecording.js";
import { describeTarget } from "../../upstream/serverTarget.js";
import { ANY_RESULT } from "../../upstream/anyResult.js";
import { stdioLaunch, upstreamClient } from "../../upstream/upstream.js";
import { serverFetch } from "../../upstream/upstreamTransport.js";
import { upstreamAuthErrorIn } from "../../upstream/upstreamAuth.js";
import { parseStrictJson } from "../../engine/json/strictJson.js";
import { extractToolSchemaTexts } from "../../engine/pins/exactHash.js";
import type { ToolDefinition } from "../../engine/model/gate.js";
import { fetchCatalogPages, type ListedTool } from "../../session/catalogPages.js";

/**
 * The live catalog of one MCP server as `toolgate pin` needs it: every page of `tools/list`, each tool
 * read from the JSON text the server sent (strict JSON, as the gateway reads it) together with its
 * inputSchema's raw text, from which exact_schema_hash is taken.
 *
 * The SDK client does the handshake, the one pagination loop (session/catalogPages.ts) the paging, refusing
 * a tool listed twice (a pin would be ambiguous); the transport underneath is one that records each
 * message's text before the SDK parses it (gateway/rawRecording.ts), and the `tools/list` answers are
 * picked out of those texts by request id.
 */

/** A server to read: how to reach it, its name, and its own start-up limit (`startup_timeout`), if any. */
export type CatalogTarget = RecordingTarget & { name: string; startupTimeoutMs?: number };

export interface LiveCatalog {
  serverInfo: Implementation;
  /** False when the server did not declare the tools capability (then `tools` is empty). */
  hasTools: boolean;
  /** In the order the server listed them, across pages. */
  tools: ToolDefinition[];
  /** Each tool's inputSchema as the server wrote it (tools without one are absent). */
  rawSchemas: Map<string, string>;
  /** The tools with every field the server listed (title, outputSchema …), for a saved catalog. */
  listed: ListedTool[];
}

const STDERR_KEEP = 4000;

/**
 * An mcp.json entry as the gateway's upstream connector reaches it: a stdio server gets the MCP hosts'
 * default environment plus its `env`, its `cwd` relative to the configuration directory.
 */
export function targetFromConfig(server: McpServerConfig, baseDir: string): CatalogTarget {
  const own = server.startupTimeoutMs === undefined ? {} : { startupTimeoutMs: server.startupTimeoutMs };
  if (server.transport !== "stdio") {
    return {
      transport: server.transport,
      name: server.name,
      url: server.url,
      headers: { ...server.headers },
      // A server with token auth: client_credentials as the process; token_exchange is refused (no user).
      ...withFetch(serverFetch(server)),
      ...own,
    };
  }
  return { transport: "stdio", name: server.name, ...stdioLaunch(server, baseDir), ...own };
}

/**
 * Connects, lists every page, disconnects. Throws `E_UPSTREAM_CONNECT` (with what a stdio server said on
 * stderr) when the server cannot be reached, `E_UPSTREAM_TOOLS` when it cannot list its tools, and
 * `E_TOOLS_LIST` when its answer is not strict JSON or names a tool twice.
 */
export async function readLiveCatalog(
  target: CatalogTarget,
  timeoutMs: number,
  /** The command's `--startup-timeout` (the target's own `startup_timeout` wins); default: `timeoutMs`. */
  startupTimeoutMs: number = timeoutMs,
): Promise<LiveCatalog> {
  const startupMs = target.startupTimeoutMs ?? startupTimeoutMs;
  let stderr = "";
  const { transport, texts } = recordingTransport(
    target,
    (text) => (stderr = (stderr + text).slice(-STDERR_KEEP)),
  );
  const client = upstreamClient({ name: "toolgate-pin", version: "0.1.0" }, {}, startupMs);
  const where = `'${target.name}' (${target.transport}: ${describeTarget(target)})`;
  const withStderr = (reason: string): string =>
    stderr.trim() === "" ? reason : `${reason}; the server's stderr said:\n${stderr.trim()}`;

  try {
    await client.connect(transport, { timeout: startupMs, maxTotalTimeout: startupMs });
  } catch (error) {
    await client.close().catch(() => {});
    const refused = upstreamAuthErrorIn(error);
    if (refused !== null) throw refused;
    await new Promise((r) => setTimeout(r, 50));
    if (/timed out/i.test(reasonOf(error))) {
      throw new ToolgateError(
        "E_UPSTREAM_START",
        withStderr(
          `MCP server ${where} did not answer within ${Math.round(startupMs / 100) / 10} s (startup_timeout)`,
        ),
        `if it is only slow, give it longer: --startup-timeout <seconds> (or "startup_timeout" in its mcp.json entry)`,
      );
    }
    throw new ToolgateError(
      "E_UPSTREAM_CONNECT",
      `cannot connect to MCP server ${where}: ${withStderr(reasonOf(error))}`,
      target.transport === "stdio"
        ? "check the command, its arguments and its working directory"
        : "check that the server is running and its URL",
    );
  }
  try {
    const serverInfo = client.getServerVersion() ?? { name: "", version: "" };
    if (client.getServerCapabilities()?.tools === undefined) {
      return { serverInfo, hasTools: false, tools: [], rawSchemas: new Map(), listed: [] };
    }
    let fetched;
    try {
      fetched = await fetchCatalogPages(
        async (cursor) => {
          let text: string | undefined;
          const { pending, id } = texts.capture(() =>
            client.request(
              { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
              ANY_RESULT,
              { timeout: timeoutMs },
            ),
          );
          try {
            await pending;
          } finally {
            if (id !== undefined) text = texts.take(id);
          }
          if (text === undefined)
            throw new Error("the text of its tools/list answer was not seen on the transport");
          // Read from the text the server sent, strictly (as the gateway reads it), not from the SDK's parse.
          return { result: resultOfPage(text), text };
        },
        () => {},
        { duplicates: "refuse" },
      );
    } catch (error) {
      if (error instanceof ToolgateError) throw error;
      throw listError(target, withStderr(reasonOf(error)));
    }
    const tools: ToolDefinition[] = [...fetched.tools.values()].map((t) => {
      // A tool without an inputSchema is pinned as one: its schema_hash is the hash of null (the spec).
      const definition: ToolDefinition = { name: t.name };
      if (Object.hasOwn(t, "description")) definition.description = t.description as string;
      if (Object.hasOwn(t, "inputSchema")) definition.inputSchema = t.inputSchema;
      if (Object.hasOwn(t, "annotations")) definition.annotations = t.annotations;
      return definition;
    });
    const rawSchemas = new Map<string, string>();
    for (const text of fetched.pageTexts) {
      if (text === undefined) continue;
      for (const [name, schema] of extractToolSchemaTexts(text)) rawSchemas.set(name, schema);
    }
    return { serverInfo, hasTools: true, tools, rawSchemas, listed: [...fetched.tools.values()] };
  } finally {
    await client.close().catch(() => {});
  }
}

/** The result of one page, read from its text as strict JSON (duplicate member names refused). */
function resultOfPage(text: string): unknown {
  const parsed = parseStrictJson(text);
  if (!parsed.ok)
    throw new ToolgateError("E_TOOLS_LIST", `the tools/list answer is not strict JSON: ${parsed.message}`);
  return (parsed.value as { result?: unknown }).result;
}

function listError(target: CatalogTarget, reason: string): ToolgateError {
  return new ToolgateError(
    "E_UPSTREAM_TOOLS",
    `MCP server '${target.name}' could not list its tools: ${reason}`,
  );
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && /spawn/.test(error.message)) return `${error.message} (command not found)`;
    return error.message;
  }
  return String(error);
}

function withFetch(f: typeof fetch | undefined): { fetch?: typeof fetch } {
  return f === undefined ? {} : { fetch: f };
}
