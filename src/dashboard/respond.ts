import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * How every dashboard answer is sent: with the same security headers on each (a page that forgot one is the
 * page an attacker would pick), never cached (pages show live verdicts and logs), and request bodies read
 * with a bound.
 */

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": CSP,
  "X-Content-Type-Options": "nosniff",
  // Not `no-referrer`: under it a browser sends `Origin: null` with a same-origin form, which the POST check
  // must refuse. `same-origin` keeps Origin and Referer for our own pages and sends neither elsewhere.
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

export function send(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string | string[]> = {},
  type = "text/html; charset=utf-8",
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "Cache-Control": "no-store",
    "Content-Type": type,
    "Content-Length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** 303 See Other: after a POST, the browser GETs the next page (a reload does not repeat the POST). */
export function redirect(
  res: ServerResponse,
  location: string,
  headers: Record<string, string | string[]> = {},
): void {
  res.writeHead(303, {
    ...SECURITY_HEADERS,
    "Cache-Control": "no-store",
    "Content-Length": "0",
    Location: location,
    ...headers,
  });
  res.end();
}

export class BodyTooLarge extends Error {}

/** The request body as text; BodyTooLarge past `limit` bytes (the forms here are a few hundred bytes). */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop keeping it; the answer (413) is sent with `Connection: close`, which ends the rest.
        req.removeAllListeners("data");
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export interface CookieOptions {
  maxAgeSeconds?: number;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Path=/ui (nothing else gets it). */
export function cookie(name: string, value: string, options: CookieOptions = {}): string {
  const age = options.maxAgeSeconds === undefined ? "" : `; Max-Age=${options.maxAgeSeconds}`;
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=/ui${age}`;
}

export function clearCookie(name: string): string {
  return cookie(name, "", { maxAgeSeconds: 0 });
}
