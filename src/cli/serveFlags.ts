import type { OpsFlags } from "./opsOptions.js";
import type { AuditSigningFlags } from "./auditSigningOptions.js";
import type { ServeMode } from "../serve/serveMode.js";
import type { ContextFlags } from "./contextOptions.js";
import type { LogFields } from "../engine/model/logFields.js";
import { logLine } from "./log/stderrLog.js";

/** `toolgate serve`'s flags as commander parses them (shared by its stdio and HTTP halves). */
export interface ServeFlags extends ContextFlags, OpsFlags, AuditSigningFlags {
  stdio?: boolean;
  /** Seconds the requests in flight get to finish after SIGTERM/SIGINT. */
  drainTimeout: number;
  http?: number;
  state?: string;
  announce?: string;
  oauthIssuer: string[];
  oauthAudience?: string;
  oauthScope: string[];
  dashboard?: boolean;
  dashboardClientId?: string;
  host: string;
  mode: ServeMode;
  token?: string;
  tokens?: string;
  allowedOrigin: string[];
  allowedHost: string[];
  maxBodyBytes: number;
  maxSessions: number;
  maxSessionsPerToken?: number;
  sessionIdleTimeout: number;
  auditLog?: string;
  requestTimeout: number;
  startupTimeout: number;
  /** `--self-test FILE` (else config.yaml's `tests:`). */
  selfTest?: string;
  listWait: number;
  approvalTimeout: number;
  dryRun?: boolean;
  auditArgs?: boolean;
  verbose?: boolean;
  maxFrameBytes: number;
  approvalKey: string[];
  logFormat?: string;
}

export const EXIT_BAD_INPUT = 2;

/**
 * Refuses to start: the message on stderr (exit 2). Its code: E_USAGE for flags that do not go together,
 * else the message's own (`error CODE: …`), else E_START_REFUSED.
 */
export function fail(message: string, code?: string, fields: LogFields = {}): number {
  const own = /^error [EW]_[A-Z][A-Z0-9_]+\b/.test(message);
  logLine(message, own ? fields : { ...fields, code: code ?? "E_START_REFUSED" });
  return EXIT_BAD_INPUT;
}

/** One client's context: the stdio client, or a token of the HTTP gateway. */

export type { ClientContext } from "../serve/gateway.js";
