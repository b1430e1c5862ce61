// A remote MCP server that acts for the user a token names, as GitHub's or Jira's would: the v2 SDK's
// createMcpHandler (both eras) behind node:http on 127.0.0.1, admitting a request only with a bearer
// token of the test's issuer (signature from its JWKS, `exp` checked with no skew) whose audience is this
// server's. Its tool `whoami` answers the token's subject. It records every token it was sent and every
// call (subject and token id), and can refuse a token it accepted before (as a resource server does once it
// learns a token was revoked): the next request with it is 401.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server";

export interface UserMcpServer {
  url: string;
  audience: string;
  /** Every bearer token sent to it, accepted or not. */
  tokens: Set<string>;
  /** Every tool call: the token's subject and id. */
  calls: { sub: string; jti: string }[];
  /** Requests refused with 401. */
  unauthorized: number;
  /** The token with this id is refused from now on. */
  refuse(jti: string): void;
  close(): Promise<void>;
}

function bodyOf(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startUserMcpServer(issuer: string, audience: string): Promise<UserMcpServer> {
  const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const refused = new Set<string>();
  const out = {
    tokens: new Set<string>(),
    calls: [] as { sub: string; jti: string }[],
    unauthorized: 0,
  };
  const handler = createMcpHandler((ctx) => {
    const claims = (ctx.authInfo?.extra ?? {}) as JWTPayload;
    const server = new McpServer({ name: "user-fixture", version: "1.0.0" });
    server.registerTool(
      "whoami",
      {
        description: "Says who the token is for",
        inputSchema: fromJsonSchema({ type: "object", properties: {} }),
      },
      async () => {
        out.calls.push({ sub: String(claims.sub), jti: String(claims.jti) });
        return { content: [{ type: "text", text: `you are ${String(claims.sub)}` }] };
      },
    );
    return server;
  });
  const http: Server = createServer((req, res) => {
    void (async () => {
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (token !== undefined) out.tokens.add(token);
      let claims: JWTPayload | null = null;
      if (token !== undefined) {
        try {
          ({ payload: claims } = await jwtVerify(token, keys, { issuer, audience, clockTolerance: 0 }));
        } catch {
          claims = null;
        }
      }
      if (claims === null || refused.has(String(claims.jti))) {
        out.unauthorized++;
        res.writeHead(401, {
          "www-authenticate": `Bearer error="invalid_token"`,
          "content-type": "text/plain",
        });
        // What a careless server does: echo what it was sent. toolgate must never pass this on.
        res.end(`invalid token ${token ?? ""}`);
        return;
      }
      const body = await bodyOf(req);
      const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, {
        method: req.method ?? "GET",
        headers: Object.entries(req.headers).flatMap(([k, v]) =>
          v === undefined
            ? []
            : Array.isArray(v)
              ? v.map((x) => [k, x] as [string, string])
              : [[k, v] as [string, string]],
        ),
        ...(body.length === 0 ? {} : { body }),
      });
      const answer = await handler.fetch(request, {
        authInfo: { token: token!, clientId: String(claims.client_id ?? ""), scopes: [], extra: claims },
      });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body === null) res.end();
      else Readable.fromWeb(answer.body as never).pipe(res);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    audience,
    get tokens() {
      return out.tokens;
    },
    get calls() {
      return out.calls;
    },
    get unauthorized() {
      return out.unauthorized;
    },
    refuse: (jti) => refused.add(jti),
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
