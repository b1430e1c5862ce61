import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * Replicas of `serve --http` behind a plain round-robin balancer: a 2025-era session lives in the replica
 * that opened it, so a request for it that lands on another replica is passed to the owner, byte for byte
 * (its own bearer token is checked there again), and the owner's answer, a JSON body or an SSE stream, is
 * passed back as it comes. One hop only: a request that was already passed on is never passed again.
 */

/** Where each session lives, shared by the replicas (state/sharedState.ts). */
export interface SessionDirectory {
  /** This replica's URL as the others reach it (`--announce`), e.g. `http://10.0.0.5:8931`. */
  self: string;
  own(sessionId: string, owner: string, ttlMs: number): Promise<void>;
  ownerOf(sessionId: string): Promise<string | null>;
  disown(sessionId: string): Promise<void>;
}

/** Marks a request one replica passed to another. */
export const FORWARDED_HEADER = "x-toolgate-replica-hop";

/** Headers a hop must not copy (RFC 9110 §7.6.1), and the ones node sets itself. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-connection",
  "content-length",
  "host",
]);

export function wasForwarded(req: IncomingMessage): boolean {
  return req.headers[FORWARDED_HEADER] !== undefined;
}

/**
 * Passes `req` (whose body, when it had one, was already read as `body`) to the replica at `owner` and
 * its answer back. Resolves `false` when the owner cannot be reached (gone: the caller answers 404, and
 * the client opens a new session), with nothing sent yet.
 */
export function forwardToOwner(
  req: IncomingMessage,
  res: ServerResponse,
  owner: string,
  path: string,
  body: string | null,
  timeoutMs: number,
): Promise<boolean> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  headers[FORWARDED_HEADER] = "1";
  const target = new URL(path, owner);
  headers.host = target.host;
  if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve) => {
    let answered = false;
    const out = httpRequest(
      target,
      { method: req.method ?? "GET", headers, timeout: timeoutMs },
      (answer) => {
        answered = true;
        const copied: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) copied[name] = value;
        }
        res.writeHead(answer.statusCode ?? 502, copied);
        answer.pipe(res);
        // The client went away: so does the hop (an SSE stream is closed at the owner too).
        res.on("close", () => answer.destroy());
        answer.on("end", () => resolve(true));
        answer.on("error", () => {
          res.destroy();
          resolve(true);
        });
      },
    );
    // No answer yet and none coming: the owner is gone. Once an answer flows, a stream may stay open long.
    out.on("timeout", () => {
      if (!answered) out.destroy(new Error("timeout"));
    });
    out.on("error", () => {
      if (!answered) resolve(false);
      else res.destroy();
    });
    out.end(body ?? undefined);
  });
}
