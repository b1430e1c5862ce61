// The surfaces the conformance suite runs every scenario against: `toolgate wrap` around one server (with a
// client of either era), and `toolgate serve` with that server as the only entry of mcp.json — direct mode
// over stdio, meta mode over stdio, direct mode over Streamable HTTP with a bearer token. One session core decides on all four, so one
// scenario must see the same decisions on each; what differs (names, the absent answer, audit fields only
// serve writes) is said once, in surfaceImplementations.ts, and nowhere in the scenarios. Every surface runs
// the real server behind fixtures/recordingShim.mjs, so "never reaches the server" is read from what the
// server itself received.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll } from "vitest";
import { NODE, readAudit, ROOT, tempDir, type outcome } from "../e2e/helpers.js";
import { IMPLEMENTATIONS } from "./surfaceImplementations.js";

export const SURFACES = [
  "wrap",
  "wrap-2026",
  "serve-direct",
  "serve-meta",
  "serve-http",
  "serve-direct-2026",
  "serve-http-2026",
] as const;
export type SurfaceName = (typeof SURFACES)[number];

/** The surfaces whose client speaks the legacy era (the v1 SDK); the others speak revision 2026-07-28. */
export const legacyEra = (surface: SurfaceName): boolean => !surface.endsWith("-2026");

/**
 * What the surfaces need of an MCP client, whichever SDK line it is: the v1 client (protocol up to
 * 2025-11-25) or the v2 client pinned to revision 2026-07-28.
 */
export interface AnyClient {
  callTool(params: { name: string; arguments?: unknown; _meta?: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  close(): Promise<void>;
}

/** Makes the surface's client, with the person's answers and the change count wired in. */
export interface ClientMaker {
  legacy(): Client;
  modern(): ModernClient;
}

/** Runs the server and appends every line it is sent to a log (see the fixture). */
const SHIM = join(ROOT, "test/conformance/fixtures/recordingShim.mjs");

export interface StartOptions {
  /** The real server's command and arguments, e.g. [NODE, FILESYSTEM_SERVER, root]. */
  server: string[];
  /** serve: its mcp.json entry name; wrap: its --label. Either way the server_id of pins and questions. */
  name: string;
  /** The policy file's YAML. */
  policy: string;
  /** More toolgate switches (--dry-run, --verbose …). */
  flags?: string[];
  /** Declares form-mode elicitation and answers every question with this (a throw answers with an error). */
  elicit?: (message: string) => unknown;
  /** The client's capabilities, when not the ones `elicit` implies. */
  capabilities?: ClientCapabilities;
  /** More environment for the real server (wrap: its own environment, which the server inherits). */
  env?: Record<string, string>;
  /**
   * More principals beside the client's own (named `token`, as `--token` names it): serve --http then takes
   * a tokens file with one entry each, and `as(name)` opens a client as one of them. Surfaces that serve one
   * client (stdio) have exactly one principal and refuse this.
   */
  others?: string[];
}

/** A client of another principal of the same gate (see StartOptions.others). */
export interface PrincipalClient {
  call(tool: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult>;
  tools(): Promise<string[]>;
  close(): Promise<void>;
}

export type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: {
    error_code?: string;
    reason?: string;
    violations?: Array<{ path: string }>;
    [key: string]: unknown;
  };
};
export type Outcome = Awaited<ReturnType<typeof outcome>>;
export type Question = { message: string; mode?: string; requestedSchema?: unknown };
export type AuditEvent = Record<string, unknown>;

export interface GateClient {
  readonly surface: SurfaceName;
  readonly server: string;
  /** The SDK client itself, for what only one surface has (meta mode's describe). */
  readonly sdk: AnyClient;
  /** False in meta mode: search answers in name order, not the server's. */
  readonly inServerOrder: boolean;
  /** What this surface adds to every tools/call audit event (serve: server and client; meta: via). */
  readonly eventBase: Record<string, unknown>;
  /** How --verbose and the deny reasons name a call of `tool`. */
  calledAs(tool: string): string;
  /**
   * The server's tools the model can see. wrap: tools/list; direct: tools/list without `<server>__`;
   * meta: `mcp_search_<server>` with an empty query (a query without words matches every visible tool, in
   * name order) and top_k 20, refused as incomplete if it comes back full.
   */
  tools(): Promise<string[]>;
  /** A call of the server's `tool`: wrap → tool; direct → `<server>__<tool>`; meta → mcp_invoke_<server>. */
  call(tool: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolResult>;
  /** The answer this surface gives a tool that does not exist, for `tool`. */
  absentAnswer(tool: string): Promise<Outcome>;
  /** The params of every tools/call the real server received (wrap's own probes left out). */
  received(tool?: string): Array<Record<string, unknown>>;
  audit(): AuditEvent[];
  callEvents(tool?: string): AuditEvent[];
  auditText(): string;
  stderr(): string;
  /**
   * How many notifications/tools/list_changed the client got. Meta mode passes none on: its own tools
   * (search, describe, invoke) never change, and search always looks at the current catalog.
   */
  toolsChanged(): number;
  readonly passesListChanged: boolean;
  /** The elicitation messages the person was asked, and the whole requests. */
  readonly questions: string[];
  readonly asked: Question[];
  /** A client of another principal (StartOptions.others). */
  as(principal: string): Promise<PrincipalClient>;
  /** How many processes the gate runs for its servers now (serve --http only). */
  serverProcesses(): number;
  close(): Promise<void>;
}

/** Whether a surface serves several principals at once (HTTP with a tokens file); stdio serves one client. */
export const manyPrincipals = (surface: SurfaceName): boolean => surface.startsWith("serve-http");

function clientMaker(o: StartOptions, asked: Question[], changed: { n: number }): ClientMaker {
  const capabilities = o.capabilities ?? (o.elicit === undefined ? {} : { elicitation: { form: {} } });
  const info = { name: "toolgate-conformance", version: "1.0.0" };
  return {
    legacy: () => {
      const client = new Client(info, { capabilities });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed.n++);
      if (o.elicit !== undefined) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked.push(request.params as Question);
          return o.elicit!(request.params.message) as { action: "accept" | "decline" | "cancel" };
        });
      }
      return client;
    },
    modern: () => {
      const client = new ModernClient(info, {
        capabilities: capabilities as never,
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      });
      client.setNotificationHandler("notifications/tools/list_changed", () => void changed.n++);
      if (o.elicit !== undefined) {
        client.setRequestHandler("elicitation/create", async (request) => {
          asked.push(request.params as Question);
          return o.elicit!(request.params.message) as { action: "accept" | "decline" | "cancel" };
        });
      }
      return client;
    },
  };
}

export async function startSurface(name: SurfaceName, o: StartOptions): Promise<GateClient> {
  const surface = IMPLEMENTATIONS[name];
  const dir = tempDir("tg-conf-");
  const auditLog = join(dir, "audit.jsonl");
  const receivedLog = join(dir, "received.jsonl");
  const asked: Question[] = [];
  const changed = { n: 0 };
  const flags = ["--audit-log", auditLog, ...(o.flags ?? [])];
  const session = await surface.launch(
    o,
    [NODE, SHIM, receivedLog, ...o.server],
    flags,
    dir,
    clientMaker(o, asked, changed),
  );
  const client = session.client;
  const readCalls = (): Array<Record<string, unknown>> =>
    readFileSync(receivedLog, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { method?: string; params?: Record<string, unknown> })
      .filter((m) => m.method === "tools/call")
      .map((m) => m.params ?? {})
      .filter((p) => !String(p.name).startsWith("toolgate-probe-"));
  const callEvents = (tool?: string) =>
    readAudit(auditLog).filter((e) => e.event === "tools/call" && (tool === undefined || e.tool === tool));
  return {
    surface: name,
    server: o.name,
    sdk: client,
    inServerOrder: surface.inServerOrder,
    eventBase: surface.eventBase(o.name),
    calledAs: (tool) => surface.calledAs(o.name, tool),
    tools: () => surface.tools(client, o.name),
    call: async (tool, args, meta) =>
      (await client.callTool({
        ...surface.request(o.name, tool, args),
        ...(meta === undefined ? {} : { _meta: meta }),
      })) as ToolResult,
    absentAnswer: (tool) => surface.absentAnswer(o, tool),
    received: (tool) => readCalls().filter((p) => tool === undefined || p.name === tool),
    audit: () => readAudit(auditLog),
    callEvents,
    auditText: () => readFileSync(auditLog, "utf8"),
    stderr: session.stderr,
    toolsChanged: () => changed.n,
    passesListChanged: surface.passesListChanged,
    get questions() {
      return asked.map((q) => q.message);
    },
    asked,
    as: async (principal) => {
      if (session.connectAs === undefined) throw new Error(`${name} serves one principal`);
      const other = await session.connectAs(principal);
      return {
        call: async (tool, args, meta) =>
          (await other.callTool({
            ...surface.request(o.name, tool, args),
            ...(meta === undefined ? {} : { _meta: meta }),
          })) as ToolResult,
        tools: () => surface.tools(other, o.name),
        close: () => other.close(),
      };
    },
    serverProcesses: () => {
      if (session.serverProcesses === undefined) throw new Error(`${name} does not run as a gateway process`);
      return session.serverProcesses();
    },
    close: session.close,
  };
}

/** Starts gates for one describe block and closes every one of them after it. */
export function gates(): (surface: SurfaceName, o: StartOptions) => Promise<GateClient> {
  const open: GateClient[] = [];
  afterAll(async () => {
    for (const g of open.splice(0).reverse()) await g.close().catch(() => {});
  });
  return async (surface, o) => {
    const g = await startSurface(surface, o);
    open.push(g);
    return g;
  };
}

/**
 * The code and text of toolgate's deny. server-filesystem's tools declare an outputSchema, so the deny
 * leaves out structuredContent (see denyResult.ts) and the code is read from the text.
 */
export const denial = (r: ToolResult): { code: string | undefined; text: string } => {
  const text = r.content[0]?.text ?? "";
  return { code: r.structuredContent?.error_code ?? /^Blocked by \w+: (E_[A-Z_]+) /.exec(text)?.[1], text };
};

/** `names` as `c.tools()` must give them: the server's order, or name order in meta mode. */
export const asListed = (c: GateClient, names: string[]): string[] =>
  c.inServerOrder ? names : [...names].sort();
