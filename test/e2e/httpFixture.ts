// MCP servers served over HTTP inside the test process, on 127.0.0.1 only: Streamable HTTP (stateless: a new
// server per request; or stateful, with sessions) and the legacy HTTP+SSE transport. Records the headers of every request it gets.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export interface HttpFixture {
  url: string;
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

function listen(http: HttpServer): Promise<number> {
  return new Promise((resolve) =>
    http.listen(0, "127.0.0.1", () => resolve((http.address() as AddressInfo).port)),
  );
}

function closeHttp(http: HttpServer): Promise<void> {
  http.closeAllConnections();
  return new Promise((resolve) => http.close(() => resolve()));
}

/** `http` servers: POST /mcp, each request handled by a fresh server in stateless mode. */
export async function serveStreamableHttp(create: () => Server): Promise<HttpFixture> {
  const headers: IncomingHttpHeaders[] = [];
  const http = createServer((req, res) => {
    headers.push(req.headers);
    if (req.url !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const server = create();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  const port = await listen(http);
  return { url: `http://127.0.0.1:${port}/mcp`, headers, close: () => closeHttp(http) };
}

export interface StatefulHttpFixture extends HttpFixture {
  /** Session ids the server gave out, and those a client ended with DELETE. */
  opened: string[];
  deleted: string[];
}

/** `http` servers with sessions (Mcp-Session-Id), as the SDK's stateful mode keeps them: POST, GET, DELETE. */
export async function serveStatefulHttp(create: () => Server): Promise<StatefulHttpFixture> {
  const headers: IncomingHttpHeaders[] = [];
  const opened: string[] = [];
  const deleted: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    headers.push(req.headers);
    if (req.url !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const transport = sessions.get(id);
      if (transport === undefined) {
        res.writeHead(404).end();
        return;
      }
      if (req.method === "DELETE") deleted.push(id);
      void transport.handleRequest(req, res);
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        opened.push(sessionId);
        sessions.set(sessionId, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    void create()
      .connect(transport)
      .then(() => transport.handleRequest(req, res));
  });
  const port = await listen(http);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    opened,
    deleted,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      await closeHttp(http);
    },
  };
}

/** `sse` servers: GET /sse opens the stream, POST /messages?sessionId=… carries the client's messages. */
export async function serveSse(create: () => Server): Promise<HttpFixture> {
  const headers: IncomingHttpHeaders[] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const http = createServer((req, res) => {
    headers.push(req.headers);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      void create().connect(transport);
      return;
    }
    if (req.method === "POST" && url.pathname === "/messages") {
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (transport === undefined) {
        res.writeHead(404).end();
        return;
      }
      void transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  const port = await listen(http);
  return { url: `http://127.0.0.1:${port}/sse`, headers, close: () => closeHttp(http) };
}
