import { Agent, request } from "node:http";

/**
 * The thinnest MCP client over Streamable HTTP: keep-alive `http.request`, one JSON body per call, the
 * answer read as JSON. The same code in either era, so the gateway's two paths are compared with nothing
 * of a client library's own cost in between (the SDK clients differ in what they spend per call).
 */
export class RawHttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private session: string | undefined;
  private nextId = 1;

  private constructor(
    private readonly url: URL,
    private readonly token: string,
    private readonly era: "legacy" | "2026-07-28",
  ) {}

  static async connect(url: string, token: string, era: "legacy" | "2026-07-28"): Promise<RawHttpClient> {
    const client = new RawHttpClient(new URL(url), token, era);
    if (era === "legacy") {
      const opened = await client.post(
        {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          },
        },
        {},
      );
      client.session = opened.session;
      await client.post({ jsonrpc: "2.0", method: "notifications/initialized" }, {});
    }
    return client;
  }

  async callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown> {
    const id = this.nextId++;
    const modern = this.era !== "legacy";
    const body = {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: modern
        ? {
            ...params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": this.era,
              "io.modelcontextprotocol/clientCapabilities": {},
              "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            },
          }
        : params,
    };
    const headers: Record<string, string> = modern
      ? { "mcp-protocol-version": this.era, "mcp-method": "tools/call", "mcp-name": params.name }
      : { "mcp-protocol-version": "2025-11-25", "mcp-session-id": this.session! };
    const answer = await this.post(body, headers);
    const parsed = JSON.parse(answer.text) as { result?: unknown; error?: { message: string } };
    if (parsed.error !== undefined) throw new Error(parsed.error.message);
    return parsed.result;
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  private post(body: unknown, headers: Record<string, string>): Promise<{ text: string; session?: string }> {
    const text = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method: "POST",
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "content-length": Buffer.byteLength(text),
            ...headers,
          },
        },
        (res) => {
          let answer = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (answer += chunk));
          res.on("end", () => {
            const session = res.headers["mcp-session-id"];
            resolve(typeof session === "string" ? { text: answer, session } : { text: answer });
          });
        },
      );
      req.on("error", reject);
      req.end(text);
    });
  }
}
