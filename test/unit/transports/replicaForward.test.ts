// A request passed to its owner replica over real sockets on 127.0.0.1: the wait is bounded only until the
// owner answers at all (its 102 Processing or its headers); the answer itself may take as long as it takes.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { acknowledgeHop, FORWARDED_HEADER, forwardToOwner } from "../../../src/transports/replicaForward.js";

const WAIT_MS = 1000;
const started: Server[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  started.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A replica that passes every request to `owner`; `outcome` is what forwardToOwner resolved. */
async function forwarder(owner: string, outcomes: boolean[]): Promise<string> {
  return listen((req, res) => {
    void forwardToOwner(req, res, owner, "/mcp", "{}", "proof-value", WAIT_MS).then((ok) => {
      outcomes.push(ok);
      if (!ok) res.writeHead(404).end("gone");
    });
  });
}

function post(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/mcp`,
      { method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end("{}");
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("forwardToOwner", () => {
  it("an owner that acknowledges at once may answer long after the wait for it would have ended", async () => {
    const seen: IncomingMessage[] = [];
    const owner = await listen((req, res) => {
      seen.push(req);
      acknowledgeHop(res);
      void sleep(WAIT_MS * 3).then(() =>
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":1}'),
      );
    });
    const outcomes: boolean[] = [];
    const answer = await post(await forwarder(owner, outcomes));
    expect(answer).toEqual({ status: 200, body: '{"ok":1}' });
    expect(outcomes).toEqual([true]);
    expect(seen[0]!.headers[FORWARDED_HEADER]).toBe("proof-value");
    expect(seen[0]!.headers.host).toBe(new URL(owner).host);
  });

  it("an owner that takes the connection but never answers is taken for gone: nothing is sent", async () => {
    const owner = await listen(() => undefined);
    const outcomes: boolean[] = [];
    expect(await post(await forwarder(owner, outcomes))).toEqual({ status: 404, body: "gone" });
    expect(outcomes).toEqual([false]);
  });

  it("an owner that cannot be reached is taken for gone", async () => {
    const closed = await listen(() => undefined);
    const server = started.pop()!;
    await new Promise((r) => server.close(r));
    const outcomes: boolean[] = [];
    expect(await post(await forwarder(closed, outcomes))).toEqual({ status: 404, body: "gone" });
    expect(outcomes).toEqual([false]);
  });

  it("a client that goes away before the answer ends the hop: the owner sees its request closed", async () => {
    let arrived: () => void = () => undefined;
    const atOwner = new Promise<void>((r) => (arrived = r));
    let ownerClosed: () => void = () => undefined;
    const closedAtOwner = new Promise<void>((r) => (ownerClosed = r));
    const owner = await listen((_req, res) => {
      acknowledgeHop(res);
      res.on("close", () => ownerClosed());
      arrived();
    });
    const front = await forwarder(owner, []);
    const req = request(`${front}/mcp`, { method: "POST" });
    req.on("error", () => undefined);
    req.end("{}");
    await atOwner;
    req.destroy();
    await closedAtOwner;
  });
});
