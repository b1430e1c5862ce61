// A stand-in authorization server on 127.0.0.1 for the unit tests of src/auth: it counts every request by
// path, and answers each as the test says (its metadata and keys, a failure, an endless body, nothing).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface StandIn {
  url: string;
  /** Requests seen, by path. */
  hits: Map<string, number>;
  total(): number;
  answer: Answer;
  stop(): Promise<void>;
}

export async function startStandIn(answer: Answer): Promise<StandIn> {
  const open = new Set<ServerResponse>();
  const standIn: StandIn = {
    url: "",
    hits: new Map(),
    total: () => [...standIn.hits.values()].reduce((a, b) => a + b, 0),
    answer,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    standIn.hits.set(path, (standIn.hits.get(path) ?? 0) + 1);
    open.add(res);
    res.on("close", () => open.delete(res));
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => standIn.answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}

export function json(res: ServerResponse, value: unknown, status = 200): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Writes without end until the client goes away; `sent` counts the bytes written. */
export function endless(res: ServerResponse, sent: { bytes: number; closed: boolean }): void {
  res.writeHead(200, { "content-type": "application/json" });
  const chunk = Buffer.alloc(64 * 1024, " ");
  res.write('{"keys": [');
  const more = (): void => {
    // Bounded by the client: once it stops reading, the socket closes and writing ends.
    while (!res.destroyed && sent.bytes < 64 * 1024 * 1024) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) {
        res.once("drain", more);
        return;
      }
    }
  };
  res.on("close", () => (sent.closed = true));
  more();
}
