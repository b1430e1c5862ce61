import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * Replicas of `serve --http` behind a plain round-robin balancer: a 2025-era session lives in the replica
 * that opened it, so a request for it that lands on another replica is passed to the owner, byte for byte
 * (its own bearer token is checked there again), and the owner's answer, a JSON body or an SSE stream, is
 * passed back as it comes, however long it takes. One hop only: a request that was already passed on is
 * never passed again. Replicas follow only ownership records, and accept only hops, that carry a proof
 * made with the state secret (replicaTrust.ts).
 */

/** Where each session lives, shared by the replicas (replicaDirectory.ts over state/sharedState.ts). */
export interface SessionDirectory {
  /** This replica's URL as the others reach it (`--announce`), e.g. `http://10.0.0.5:8931`. */
  self: string;
  own(sessionId: string, owner: string, ttlMs: number): Promise<void>;
  /** The owner of a verified record; `null` when there is none, or none that verifies. */
  ownerOf(sessionId: string): Promise<string | null>;
  disown(sessionId: string): Promise<void>;
  /** The hop header's value for a request passed to `owner` for `sessionId`. */
  proveHop(sessionId: string, owner: string): string;
  /** Whether a hop header's value was made by a replica sharing the secret, for this replica and session. */
  checkHop(sessionId: string, proof: string): boolean;
}

/** Carries the hop proof of a request one replica passed to another. */
export const FORWARDED_HEADER = "x-toolgate-replica-hop";

/**
 * How long a replica waits for the owner to answer at all: its `102 Processing` (sent as soon as it has
 * taken the request, see {@link acknowledgeHop}) or its answer's headers. Past that the owner is taken for
 * gone. The answer itself (a call may run for minutes) is never cut.
 */
export const OWNER_ANSWER_TIMEOUT_MS = 10_000;

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

/** Whether `req` was passed on by another replica: its hop header carries a proof this replica accepts. */
export function wasForwarded(req: IncomingMessage, directory: SessionDirectory): boolean {
  const proof = req.headers[FORWARDED_HEADER];
  const sessionId = req.headers["mcp-session-id"];
  if (proof === undefined) return false;
  return typeof proof === "string" && typeof sessionId === "string" && directory.checkHop(sessionId, proof);
}

/**
 * The owner's side of a hop: tells the replica that passed the request on that it has it (an interim
 * `102 Processing`), so that replica's bounded wait ends and the answer may take as long as the call does.
 */
export function acknowledgeHop(res: ServerResponse): void {
  res.writeProcessing();
}

/**
 * Passes `req` (whose body, when it had one, was already read as `body`) to the replica at `owner` with
 * the hop header `proof`, and its answer back. Resolves `false` when the owner cannot be reached or does
 * not answer within `timeoutMs` (gone: the caller answers 404, and the client opens a new session), with
 * nothing sent yet; `true` once the answer has been passed back, or the client has gone away.
 */
export function forwardToOwner(
  req: IncomingMessage,
  res: ServerResponse,
  owner: string,
  path: string,
  body: string | null,
  proof: string,
  timeoutMs: number = OWNER_ANSWER_TIMEOUT_MS,
): Promise<boolean> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  headers[FORWARDED_HEADER] = proof;
  const target = new URL(path, owner);
  headers.host = target.host;
  if (body !== null) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve) => {
    let answered = false;
    const out = httpRequest(target, { method: req.method ?? "GET", headers });
    // No sign of the owner yet and none coming: it is gone. Once it has spoken, nothing is timed here.
    const silence = setTimeout(() => out.destroy(new Error("the owner did not answer")), timeoutMs);
    const heard = (): void => clearTimeout(silence);
    out.on("information", heard);
    out.on("response", (answer) => {
      heard();
      answered = true;
      const copied: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) copied[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, copied);
      answer.pipe(res);
      answer.on("end", () => resolve(true));
      answer.on("error", () => {
        res.destroy();
        resolve(true);
      });
    });
    // The client went away: so does the hop (the owner sees its request closed, as if the client had
    // closed it there: an SSE stream ends, a call's answer has nobody waiting).
    res.on("close", () => {
      heard();
      if (!res.writableFinished) out.destroy();
      resolve(true);
    });
    out.on("error", () => {
      heard();
      if (!answered && !res.destroyed) resolve(false);
      else res.destroy();
    });
    out.end(body ?? undefined);
  });
}
