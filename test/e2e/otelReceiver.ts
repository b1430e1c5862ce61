// An OTLP/HTTP trace receiver for the e2e tests, in the test process on 127.0.0.1: it keeps the bytes of
// every export request and decodes the JSON spans.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpSpan {
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
  status?: { code?: number; message?: string };
}
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Receiver {
  url: string;
  requests: Received[];
  spans(): Array<{
    name: string;
    kind: number;
    attrs: Record<string, unknown>;
    status?: OtlpSpan["status"];
    resource: Record<string, unknown>;
  }>;
  close(): Promise<void>;
}

const value = (v: OtlpValue): unknown =>
  v.stringValue ??
  v.boolValue ??
  (v.intValue !== undefined ? Number(v.intValue) : v.arrayValue?.values?.map(value));
const attrsOf = (list: Array<{ key: string; value: OtlpValue }> = []): Record<string, unknown> =>
  Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

/** An OTLP/HTTP receiver: POST <path> with a JSON ExportTraceServiceRequest. `hang`: never answer. */
export async function receiver(options: { hang?: boolean } = {}): Promise<Receiver> {
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      if (options.hang === true) return;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans() {
      const out: ReturnType<Receiver["spans"]> = [];
      for (const r of requests) {
        expect(r.headers["content-type"]).toContain("application/json");
        const body = JSON.parse(r.body.toString("utf8")) as {
          resourceSpans: Array<{
            resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
            scopeSpans: Array<{ spans: OtlpSpan[] }>;
          }>;
        };
        for (const rs of body.resourceSpans) {
          for (const ss of rs.scopeSpans) {
            for (const s of ss.spans) {
              out.push({
                name: s.name,
                kind: s.kind,
                attrs: attrsOf(s.attributes),
                status: s.status,
                resource: attrsOf(rs.resource?.attributes),
              });
            }
          }
        }
      }
      return out;
    },
    close() {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

export async function until(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}
