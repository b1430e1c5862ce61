import type { AuditSink } from "../audit/sink.js";
import type { ApprovalKeyring } from "../engine/model/approval.js";
import type { Principal } from "../engine/model/principal.js";
import type { RequestStateCodec } from "../engine/protocol/requestState.js";
import type { ApprovalClaims } from "../session/approvalClaims.js";
import type { ApprovalDesk } from "../session/approvalDesk.js";
import type { RequestCounter } from "../session/toolSession.js";
import type { Backoff, ConnectUpstream } from "../upstream/upstreamLink.js";
import type { SessionContext } from "./sessionContext.js";
import type { ServeMode } from "./serveMode.js";
import type { UpstreamPool } from "./upstreamPool.js";
import type { GatewayMetrics } from "../ops/gatewayMetrics.js";
import type { UpstreamCredentials } from "../upstream/upstreamCredentials.js";

/** What one client session of `toolgate serve` is made with (gatewaySession.ts), and its defaults. */

export interface SessionOptions {
  mode: ServeMode;
  context: SessionContext;
  /** The MCP session id (HTTP) or a random label (stdio): recorded in every audit event. */
  sessionId: string;
  audit: AuditSink | null;
  connect: ConnectUpstream;
  /** Relative `cwd` of stdio servers is resolved against this (the configuration directory). */
  baseDir?: string;
  /** Bound on each request toolgate makes on its own (catalog pages). */
  upstreamTimeoutMs: number;
  /** How long a server may take to start (`--startup-timeout`; its `startup_timeout` wins). Default 60 s. */
  startupTimeoutMs?: number;
  /**
   * How long a `tools/list` waits for servers still starting before it answers without them; each is
   * announced (`tools/list_changed`) once its catalog is in. Default {@link DEFAULT_LIST_WAIT_MS}.
   */
  listWaitMs?: number;
  /** Bound on a forwarded request (reset by progress); the client's cancellation ends it sooner. */
  requestTimeoutMs: number;
  backoff: Backoff;
  /** How long a call under `approval_required` waits for the person's answer (default 120 s). */
  approvalTimeoutMs?: number;
  /** Decide and record, but forward everything (the audit log says `would-deny` / `would-hide`). */
  dryRun?: boolean;
  /** `--audit-args`: call events record the arguments (after the redaction). */
  auditArguments?: boolean;
  /** The longest line accepted from a stdio server (`--max-frame-bytes`). */
  maxFrameBytes?: number;
  /** The keys approval artifacts must be signed with and the process's store of spent ids. */
  approvals?: { keys: ApprovalKeyring; claims: ApprovalClaims };
  /** Signs the `requestState` of toolgate's approval questions in the modern era (default: a key of its own). */
  requestStates?: RequestStateCodec;
  /**
   * Who this session serves: request states are bound to it, limits count for it, its servers are shared
   * with its other sessions (by default), approvals name it, the audit log records it. Default: a local
   * principal of this session alone.
   */
  principal?: Principal;
  /** Serves a principal's modern-era exchanges: stays open when its connections come and go. */
  persistent?: boolean;
  /** One readable line per decision on stderr. */
  verbose?: boolean;
  /** Where requests are counted against the limits (serve: per principal, in the shared state). */
  counter?: RequestCounter;
  /** Approvals out of band: a client that cannot ask its person waits for the dashboard's answer. */
  desk?: ApprovalDesk;
  /**
   * The process's shared upstream servers: sessions of one principal share a server unless its entry says
   * otherwise. Absent: this session's own servers.
   */
  upstreams?: UpstreamPool;
  /** Where the session, its decisions and its servers' states are counted (the gateway's `/metrics`). */
  metrics?: GatewayMetrics;
  /**
   * The tokens remote servers with `auth` are reached with (token_exchange per principal, from the
   * principals' own access tokens; client_credentials). Absent: the process's own, with no user tokens.
   */
  credentials?: UpstreamCredentials;
  log: (line: string) => void;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;
/** A tools/list waits this long for servers still starting (fast ones make it), then answers without them. */
export const DEFAULT_LIST_WAIT_MS = 2000;

/** What a session's decisions write: dry run or not, the arguments or not, a line per decision or not. */
export function recordingOf(options: SessionOptions): {
  dryRun: boolean;
  auditArguments: boolean;
  verbose: boolean;
} {
  return {
    dryRun: options.dryRun === true,
    auditArguments: options.auditArguments === true,
    verbose: options.verbose === true,
  };
}
