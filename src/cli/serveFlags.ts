import type { OpsFlags } from "./opsOptions.js";
import type { ServeMode } from "../serve/serveMode.js";
import type { ContextFlags } from "./contextOptions.js";

/** `toolgate serve`'s flags as commander parses them (shared by its stdio and HTTP halves). */
export interface ServeFlags extends ContextFlags, OpsFlags {
  stdio?: boolean;
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
  listWait: number;
  approvalTimeout: number;
  dryRun?: boolean;
  verbose?: boolean;
  maxFrameBytes: number;
  approvalKey: string[];
}

export const EXIT_BAD_INPUT = 2;

/** One client's context: the stdio client, or a token of the HTTP gateway. */
export function fail(message: string): number {
  process.stderr.write(`toolgate: ${message}\n`);
  return EXIT_BAD_INPUT;
}

export type { ClientContext } from "../serve/gateway.js";
