import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonRpcId } from "../engine/rpc/jsonRpc.js";

/** The pieces of HTTP the MCP endpoint answers with: JSON-RPC error bodies, bounded bodies, media types. */

export function sendError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: JsonRpcId | null = null,
  data?: unknown,
): void {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

type Body = { ok: true; text: string } | { ok: false; status: 413 | 400; message: string };

/** Reads at most `limit` bytes; past it, stops reading (the connection is closed after the 413). */
export function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) {
    return Promise.resolve({ ok: false, status: 413, message: `request body larger than ${limit} bytes` });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (body: Body): void => {
      if (done) return;
      done = true;
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      resolve(body);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish({ ok: false, status: 413, message: `request body larger than ${limit} bytes` });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, text: Buffer.concat(chunks, size).toString("utf8") });
    const onError = (): void =>
      finish({ ok: false, status: 400, message: "the request body could not be read" });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

export function accepts(req: IncomingMessage, ...types: string[]): boolean {
  const accept = (req.headers.accept ?? "").toLowerCase();
  if (accept.includes("*/*")) return true;
  return types.every((t) => accept.includes(t));
}

export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && value.split(";")[0]!.trim().toLowerCase() === "application/json";
}
