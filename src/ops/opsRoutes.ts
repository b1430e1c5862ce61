import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { MetricsSource } from "./gatewayStatus.js";
import type { Readiness } from "./readiness.js";

/**
 * The operator's endpoints: `GET /healthz` (the process answers), `GET /readyz` (see readiness.ts) and
 * `GET /metrics` (Prometheus text). Health and readiness need no credentials and say nothing about the
 * servers; `/metrics` on the gateway's own port needs `metricsToken` as a bearer token, and is not there
 * at all without one.
 */
export interface OpsEndpoints {
  /** `null`: no `/readyz` here. */
  readiness: Readiness | null;
  metrics: MetricsSource;
  /**
   * `undefined`: `/metrics` needs no token (its own listener, `--metrics-port`); `null`: there is no
   * `/metrics` (the gateway's port without `--metrics-token`); a string: the bearer token it needs.
   */
  metricsToken: string | null | undefined;
}

export const OPS_PATHS: readonly string[] = ["/healthz", "/readyz", "/metrics"];

/** Answers `req` when it is for one of the operator's endpoints; `false` when it is not (the caller's). */
export function answerOps(req: IncomingMessage, res: ServerResponse, ops: OpsEndpoints): boolean {
  const path = (req.url ?? "").split("?")[0] ?? "";
  if (!OPS_PATHS.includes(path)) return false;
  if (path === "/metrics" && ops.metricsToken === null) return false;
  if (path === "/readyz" && ops.readiness === null) return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    json(res, 405, { error: `${path} answers GET only` }, { allow: "GET, HEAD" });
    return true;
  }
  if (path === "/healthz") {
    json(res, 200, { status: "ok" });
    return true;
  }
  if (path === "/readyz") {
    void ops.readiness!.check().then(
      (answer) =>
        answer.ready
          ? json(res, 200, { status: "ready" })
          : json(res, 503, {
              status: "not_ready",
              code: "E_NOT_READY",
              check: answer.check,
              reason: answer.reason,
            }),
      () =>
        json(res, 503, {
          status: "not_ready",
          code: "E_NOT_READY",
          check: "internal",
          reason: "readiness could not be checked",
        }),
    );
    return true;
  }
  if (typeof ops.metricsToken === "string" && !bearerMatches(req.headers.authorization, ops.metricsToken)) {
    json(
      res,
      401,
      {
        code: "E_METRICS_TOKEN",
        error: "GET /metrics on this port needs the metrics token: Authorization: Bearer <--metrics-token>",
      },
      { "www-authenticate": 'Bearer realm="toolgate-metrics"' },
    );
    return true;
  }
  ops.metrics.metricsText().then(
    (text) => {
      res.writeHead(200, { "content-type": ops.metrics.contentType, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : text);
    },
    (error: unknown) =>
      json(res, 500, {
        error: `the metrics could not be read: ${error instanceof Error ? error.message : String(error)}`,
      }),
  );
  return true;
}

/** Constant time in the token's content: both sides are hashed to one length before they are compared. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? "");
  const given = createHash("sha256")
    .update(match?.[1] ?? "")
    .digest();
  const wanted = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, wanted) && match !== null;
}

function json(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}
