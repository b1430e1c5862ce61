import { InvalidArgumentError, Option, type Command } from "commander";
import { addAuditSigningOptions, openAuditLog } from "./auditSigningOptions.js";
import type { AuditSink } from "../audit/sink.js";
import { withTelemetry } from "../audit/telemetry.js";

import type { LogFields } from "../engine/model/logFields.js";
import { logLine } from "./log/stderrLog.js";
import { addLogFormatOption, applyLogFormat } from "./log/logFormatOption.js";
import { DEFAULT_MAX_FRAME_BYTES } from "../engine/rpc/frames.js";
import { connectUpstream, DEFAULT_UPSTREAM_TIMEOUT_MS } from "../upstream/upstream.js";
import { requestStateCodec } from "./requestStateKey.js";
import { StderrRecord, tellHost } from "./hostNotice.js";
import { DEFAULT_LIST_WAIT_MS, GatewaySession } from "../serve/gatewaySession.js";
import type { ServeMode } from "../serve/serveMode.js";
import { Gateway } from "../serve/gateway.js";
import { MIN_TOKEN_LENGTH } from "../config/tokensFile.js";
import { DEFAULT_BACKOFF } from "../upstream/upstreamLink.js";
import { SecretScrubber } from "../upstream/serverSecrets.js";
import { DEFAULT_MAX_BODY_BYTES } from "../transports/httpServer.js";
import { addContextOptions, hasSelectionFlags } from "./contextOptions.js";
import { readServeConfig } from "./serveConfig.js";
import { policyLocation } from "./contextOptions.js";
import { reloadServe } from "./serveReload.js";
import type { ServeLifecycle } from "./serveLifecycle.js";
import { serveStdio } from "./serveStdio.js";
import { loadApprovalKeys } from "./approvalKeys.js";
import { describeError } from "./errorReport.js";
import { openState, stateRefused } from "./serveState.js";
import { serveDashboard } from "./serveDashboard.js";
import { UpstreamPool } from "../serve/upstreamPool.js";
import { SubjectTokens } from "../auth/subjectTokens.js";
import { UpstreamCredentials } from "../upstream/upstreamCredentials.js";

import {
  addSelfTestOption,
  addStartupTimeoutOption,
  AUDIT_ARGS_HELP,
  collect,
  integer,
} from "./optionParsers.js";
import { ServeSelfTest } from "./selfTest/serveSelfTest.js";
import { EXIT_BAD_INPUT, fail, type ClientContext, type ServeFlags } from "./serveFlags.js";
import { serveHttp } from "./serveHttpListener.js";
import { addServeOpsOptions } from "./opsOptions.js";
import { opsFlagsProblem } from "./serveOpsFlags.js";
import { catalogFetcher } from "./dashboardCatalogs.js";

/** A forwarded request may take this long (reset by each progress notification) unless the client cancels. */
const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60_000;

function modeOption(value: string): ServeMode {
  if (value !== "direct" && value !== "meta") throw new InvalidArgumentError("expected direct or meta");
  return value;
}

/** `toolgate serve`: one MCP server in front of every enabled server of the configuration directory. */
export function registerServeCommand(program: Command): void {
  const command = program
    .command("serve")
    .description(
      "one MCP server in front of every enabled server of the configuration directory, over stdio or Streamable HTTP, with the same decisions for listing and calling",
    );
  addSelfTestOption(
    addLogFormatOption(addServeOpsOptions(addStartupTimeoutOption(addContextOptions(command)))),
  )
    .option("--stdio", "serve one client on stdin/stdout (the default)")
    .option(
      "--http <port>",
      "serve Streamable HTTP on this port (0: any free port)",
      integer(0, "a port number"),
    )
    .option("--host <address>", "address to bind with --http", "127.0.0.1")
    .option(
      "--mode <mode>",
      "direct (<server>__<tool> tools) or meta (mcp_search/describe/invoke_<server>)",
      modeOption,
      "direct",
    )
    .option(
      "--token <token>",
      `bearer token clients must send (--http; else $TOOLGATE_TOKEN; at least ${MIN_TOKEN_LENGTH} characters)`,
    )
    .option(
      "--tokens <file>",
      "YAML list of tokens, each bound to a context (role, agent, session, skills, node)",
    )
    .option(
      "--allowed-origin <origin>",
      "an Origin browsers may call from (repeatable); others get 403",
      collect,
      [],
    )
    .option(
      "--allowed-host <host>",
      "another Host name clients may use (repeatable); others get 403",
      collect,
      [],
    )
    .option(
      "--max-body-bytes <n>",
      "largest accepted request body (413 above)",
      integer(1, "a positive integer"),
      DEFAULT_MAX_BODY_BYTES,
    )
    .option(
      "--max-sessions <n>",
      "most concurrent HTTP sessions; when full, the idlest without an open stream is evicted (else 503)",
      integer(1, "a positive integer"),
      32,
    )
    .option(
      "--max-sessions-per-token <n>",
      "most concurrent HTTP sessions of one token (default: an equal share of --max-sessions); its idlest unused one makes room, else 429",
      integer(1, "a positive integer"),
    )
    .option(
      "--session-idle-timeout <seconds>",
      "close an HTTP session (and stop its servers) after this long without requests",
      integer(1, "seconds"),
      1800,
    )
    .addOption(
      // From the environment too: a loaded machine (a CI runner) may want every first listing complete.
      new Option(
        "--list-wait <ms>",
        "how long a tools/list waits for servers still starting; the others are announced (tools/list_changed) once up",
      )
        .argParser(integer(0, "milliseconds"))
        .default(DEFAULT_LIST_WAIT_MS)
        .env("TOOLGATE_LIST_WAIT"),
    )
    .option(
      "--request-timeout <ms>",
      "bound on one forwarded request, reset by progress",
      integer(1, "milliseconds"),
      DEFAULT_REQUEST_TIMEOUT_MS,
    )
    .option(
      "--approval-timeout <seconds>",
      "how long a call under tools.approval_required waits for the person's answer (MCP elicitation)",
      integer(1, "seconds"),
      120,
    )
    .option("--audit-log <file>", "append one JSON line per decision to this file")
    .option("--audit-args", AUDIT_ARGS_HELP);
  addAuditSigningOptions(command)
    .option(
      "--oauth-issuer <url>",
      "accept OAuth 2.1 access tokens (JWT) of this authorization server (repeatable); the tokens file's claims: entries map them to contexts",
      collect,
      [],
    )
    .option(
      "--oauth-audience <url>",
      "the resource a token must be for (its aud; default: the public URL of /mcp)",
    )
    .option("--oauth-scope <scope>", "a scope every access token must carry (repeatable)", collect, [])
    .option(
      "--dashboard",
      "serve the web dashboard at /ui/ (sign in with a static token): verdict matrix, live decisions, audit, and approvals for clients that cannot ask their person",
    )
    .option(
      "--announce <url>",
      "with --state redis://…: this replica's URL as the other replicas reach it (default: http://HOST:PORT it listens on)",
    )
    .option(
      "--dashboard-client-id <id>",
      "with --dashboard and --oauth-issuer: the dashboard's public client at the identity provider, to sign in there (redirect URI: http://HOST:PORT/ui/oauth/callback)",
    )
    .option(
      "--state <url>",
      "where limits, spent approvals and session owners are kept: memory (default), or redis://HOST:PORT[/DB] or rediss://HOST:PORT[/DB] (TLS), shared by replicas (also state: in config.yaml)",
    )
    .option(
      "--approval-key <file>",
      "an Ed25519 public key (PEM) approval artifacts may be signed with (repeatable; also approval_keys in config.yaml and $TOOLGATE_APPROVAL_SECRET)",
      collect,
      [],
    )
    .option(
      "--dry-run",
      "decide and record every call and list, but forward everything (the audit log says would-deny / would-hide)",
    )
    .option("--verbose", "one line per decision on stderr")
    .option(
      "--drain-timeout <seconds>",
      "on SIGTERM/SIGINT: new requests are refused and those in flight get this long to finish before the exit",
      integer(0, "seconds"),
      30,
    )
    .option(
      "--max-frame-bytes <n>",
      "longest accepted JSON-RPC line over stdio, from the client and from each stdio server",
      integer(1, "a positive integer"),
      DEFAULT_MAX_FRAME_BYTES,
    )
    .action(async (flags: ServeFlags) => {
      applyLogFormat(flags);
      // Over stdio, a serve that cannot start tells its host why on the connection (see hostNotice.ts).
      const record = flags.http === undefined ? new StderrRecord() : null;
      const status = await serve(flags, () => record?.stop());
      record?.stop();
      if (record !== null && status === 2) await tellHost(record.firstError() ?? "toolgate could not start");
      if (status !== null) process.exit(status);
    });
}

/** Resolves to an exit status, or null while serving HTTP (the process then runs until a signal). */
async function serve(flags: ServeFlags, started: () => void = () => {}): Promise<number | null> {
  // Every line is scrubbed of what mcp.json configures for reaching servers (URL credentials, headers).
  let secrets: SecretScrubber | null = null;
  const log = (line: string, fields?: LogFields): void =>
    logLine(secrets === null ? line : secrets.text(line), fields);
  const http = flags.http !== undefined;
  if (http && flags.stdio === true) return fail("choose one of --stdio and --http", "E_USAGE");
  const httpOnly: Array<[boolean, string]> = [
    [flags.token !== undefined, "--token"],
    [flags.tokens !== undefined, "--tokens"],
    [flags.allowedOrigin.length > 0, "--allowed-origin"],
    [flags.allowedHost.length > 0, "--allowed-host"],
    [flags.maxSessionsPerToken !== undefined, "--max-sessions-per-token"],
    [flags.oauthIssuer.length > 0, "--oauth-issuer"],
    [flags.dashboard === true, "--dashboard"],
  ];
  for (const [given, flag] of httpOnly)
    if (given && !http) return fail(`${flag} applies to --http only`, "E_USAGE");
  if (flags.token !== undefined && flags.tokens !== undefined)
    return fail("choose one of --token and --tokens", "E_USAGE");
  if (flags.tokens !== undefined && hasSelectionFlags(flags)) {
    return fail(
      "with --tokens each token carries its own context: move --role/--agent/--session/--skill/--node into the tokens file",
      "E_USAGE",
    );
  }

  const read = readServeConfig(flags, http);
  if (typeof read === "number") return read;
  const { loaded, admitted } = read;
  const { policy } = loaded;
  const { clients, operators } = admitted;
  // Remote servers with `auth`: each OAuth principal's newest token is exchanged for theirs; never logged.
  const subjectTokens = new SubjectTokens();
  const credentials = new UpstreamCredentials({ subjectTokens });
  secrets = new SecretScrubber(loaded.config.mcp.servers, () => credentials.secrets());
  if (flags.auditArgs === true && flags.auditLog === undefined) {
    return fail(
      "--audit-args records arguments in the audit log: give the log with --audit-log FILE",
      "E_USAGE",
    );
  }
  const opsProblem = opsFlagsProblem(flags, http, loaded.config);
  if (opsProblem !== null) return fail(opsProblem);
  // Metrics where they can be read (the gateway's port, --metrics-port); prom-client is loaded only then.
  const serveOps = http || flags.metricsPort !== undefined ? await import("./serveOps.js") : null;
  const metrics = serveOps?.gatewayMetrics() ?? null;
  let keys;
  try {
    keys = loadApprovalKeys({
      keyFiles: flags.approvalKey,
      configKeys: loaded.config.global.approvalKeys,
      configDir: loaded.dir,
      env: process.env,
    });
  } catch (error) {
    return fail(describeError(error).trimEnd());
  }

  let audit: AuditSink | null;
  try {
    audit = openAuditLog(flags.auditLog, flags, "gateway", log);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  // Decision spans when OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) is set; nothing loaded otherwise.
  audit = await withTelemetry(audit, { log });
  const ui =
    flags.dashboard === true
      ? serveDashboard({
          audit,
          auditLog: flags.auditLog,
          dir: loaded.dir,
          selection: loaded.selection,
          policyFlag: flags.policy,
          operators,
          ...(metrics === null ? {} : { status: metrics }),
          clientTokens: clients.flatMap((c) =>
            c.digest === undefined || operators.some((o) => o.principal.key === c.principal.key)
              ? []
              : [c.digest],
          ),
          log,
        })
      : null;
  if (ui !== null) audit = ui.audit;

  const states = requestStateCodec(process.env);
  if ("why" in states) return fail(states.why);
  const requestStates = states.codec;
  const opened = await openState(
    flags.state,
    loaded.config.global,
    flags.sessionIdleTimeout * 1000,
    process.env,
    log,
  );
  if ("why" in opened) return stateRefused(opened);
  const ops =
    serveOps === null || metrics === null
      ? null
      : serveOps.serveOps(
          flags,
          loaded.config,
          metrics,
          opened.state,
          catalogFetcher(Math.max(DEFAULT_UPSTREAM_TIMEOUT_MS, flags.startupTimeout * 1000), log),
          loaded.dir,
        );
  const state = ops?.state ?? opened.state;
  if (ui !== null) metrics?.approvalsWaiting(() => ui.desk.size);
  // One store of spent approval ids (and request-state nonces) for every session: an artifact spent by one
  // client is spent for all, across the replicas with Redis.
  const approvals = { keys, claims: state };

  // Before anything listens: no client is answered, and /readyz is not up, until the cases passed.
  const selfTest = new ServeSelfTest(flags, log);
  if ((await selfTest.run(loaded, "toolgate did not start")).length > 0) return EXIT_BAD_INPUT;
  const gateway = new Gateway({
    policy,
    mode: flags.mode,
    audit,
    connect: connectUpstream,
    baseDir: loaded.dir,
    upstreamTimeoutMs: DEFAULT_UPSTREAM_TIMEOUT_MS,
    startupTimeoutMs: flags.startupTimeout * 1000,
    listWaitMs: flags.listWait,
    requestTimeoutMs: flags.requestTimeout,
    backoff: DEFAULT_BACKOFF,
    approvalTimeoutMs: flags.approvalTimeout * 1000,
    dryRun: flags.dryRun === true,
    auditArguments: flags.auditArgs === true,
    verbose: flags.verbose === true,
    maxFrameBytes: flags.maxFrameBytes,
    approvals,
    requestStates,
    count: (principal, isToolCall) => state.count(principal, isToolCall),
    upstreams: new UpstreamPool(log),
    credentials,
    ...(metrics === null ? {} : { metrics }),
    ...(ui === null ? {} : { desk: ui.desk }),
    log,
  });
  const newSession = (c: ClientContext, sessionId: string, persistent = false): GatewaySession =>
    gateway.session(c, sessionId, persistent);
  // SIGHUP, or an edit of the policy, the configuration directory or the tokens file, reloads.
  const location = policyLocation(loaded.config, flags.policy);
  const lifecycle: ServeLifecycle = {
    watch: [
      loaded.dir,
      ...(location === null ? [] : [location.path]),
      ...(flags.tokens === undefined ? [] : [flags.tokens]),
      ...selfTest.watched(loaded),
    ],
    reload: async (trigger) => {
      const applied = await reloadServe({ flags, http, gateway, audit, log, selfTest }, trigger);
      ops?.metrics.reload(applied === null ? "refused" : "applied");
      return applied;
    },
    drainMs: flags.drainTimeout * 1000,
    ops,
  };

  if (flags.dryRun === true)
    log("dry run: every call and list is decided and recorded, and forwarded anyway", { code: "I_DRY_RUN" });
  started();
  const opsRefused = (await ops?.start(log)) ?? null;
  if (opsRefused !== null) return fail(opsRefused);
  if (!http) return serveStdio(clients[0]!, newSession, audit, flags.maxFrameBytes, log, lifecycle);
  return serveHttp(flags, admitted, newSession, audit, log, state, ui, lifecycle, subjectTokens);
}
