import { addSelfTestOption, addStartupTimeoutOption, AUDIT_ARGS_HELP } from "./optionParsers.js";
import { randomBytes } from "node:crypto";
import { InvalidArgumentError, type Command } from "commander";
import { closeAuditSink, type AuditSink } from "../audit/sink.js";
import { withTelemetry } from "../audit/telemetry.js";
import { gatewayNameDiagnostics } from "../config/policyGatewayNames.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import type { Policy } from "../engine/model/policy.js";
import { DEFAULT_MAX_FRAME_BYTES } from "../engine/rpc/frames.js";
import { localRealpath } from "../upstream/localRealpath.js";
import { allowAllGate, createPolicyGate } from "../engine/policy/policyGate.js";
import { runStdioWrap } from "../wrap/stdioWrap.js";
import { addContextOptions, hasSelectionFlags } from "./contextOptions.js";
import { describeError } from "./errorReport.js";
import { START_REFUSED, type PlanRefusal, type WrapConfigFlags, type WrapPlan } from "./wrapConfigDir.js";
import { reloadableGate, type ReloadableGate } from "../engine/policy/reloadableGate.js";
import { watchForReload } from "./reloadWatch.js";
import { RELOAD_REFUSED, reloadWrap } from "./wrapReload.js";
import { WrapSelfTest } from "./selfTest/wrapSelfTest.js";
import type { ToolGate } from "../engine/model/gate.js";
import { loadApprovalKeys } from "./approvalKeys.js";
import { requestStateCodec } from "./requestStateKey.js";
import { StderrRecord, tellHost } from "./hostNotice.js";
import { pinServer } from "./wrapPinServer.js";
import { logDiagnostic, logEntry, logFormat, logLine } from "./log/stderrLog.js";
import { addLogFormatOption, applyLogFormat } from "./log/logFormatOption.js";
import type { LogFields } from "../engine/model/logFields.js";
import { addMetricsPortOptions } from "./opsOptions.js";
import { addAuditSigningOptions, openAuditLog, type AuditSigningFlags } from "./auditSigningOptions.js";
import type { WrapMetrics } from "../wrap/wrapMetrics.js";

interface WrapOptions extends WrapConfigFlags, AuditSigningFlags {
  policy?: string;
  auditLog?: string;
  logFormat?: string;
  dryRun?: boolean;
  auditArgs?: boolean;
  verbose?: boolean;
  label?: string;
  maxFrameBytes: number;
  approvalTimeout: number;
  approvalKey: string[];
  startupTimeout: number;
  selfTest?: string;
  metricsPort?: number;
  metricsHost: string;
}

/** Exit status when toolgate itself refuses to start (bad policy, unwritable audit log, bad flags). */
const EXIT_BAD_INPUT = 2;

/** `toolgate wrap [options] -- CMD [ARGS…]`: the stdio policy proxy around one MCP server. */
export function registerWrapCommand(program: Command): void {
  const command = program
    .command("wrap")
    .description("run an MCP server behind the policy: filtered tools/list, decided tools/call, audit log")
    .option(
      "--policy <file>",
      "policy file (v2 or legacy v1); without it every tool is allowed; with --server it wins over config.yaml's policy:",
    )
    .option(
      "--server <name>",
      "apply the filter layers of this mcp.json server of the configuration directory; " +
        "its command is run when none is given after -- (a command after -- wins)",
    );
  addSelfTestOption(
    addLogFormatOption(addMetricsPortOptions(addStartupTimeoutOption(addContextOptions(command, false)))),
  )
    .option("--audit-log <file>", "append one JSON line per decision to this file")
    .option("--audit-args", AUDIT_ARGS_HELP);
  addAuditSigningOptions(command)
    .option(
      "--dry-run",
      "decide and record, but filter and block nothing (audit says would-deny / would-hide)",
    )
    .option("--verbose", "one line per decision on stderr")
    .option(
      "--label <id>",
      "session label recorded in the audit log (default: a random id); without --server also the server_id " +
        "tool_pins and approval questions name the server by (default: the only server the pins name; never " +
        "the name the server gives itself)",
    )
    .option(
      "--approval-key <file>",
      "an Ed25519 public key (PEM) approval artifacts may be signed with (repeatable; also $TOOLGATE_APPROVAL_SECRET for HMAC)",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option(
      "--approval-timeout <seconds>",
      "how long a call under tools.approval_required waits for the person's answer (MCP elicitation)",
      positiveInteger,
      120,
    )
    .option(
      "--max-frame-bytes <n>",
      "longest accepted JSON-RPC line, either direction",
      positiveInteger,
      DEFAULT_MAX_FRAME_BYTES,
    )
    .argument("[command...]", "the server command and its arguments (after --)")
    .usage(
      "[options] -- <server-command> [args...]  |  --server <name> [options] [-- <server-command> [args...]]",
    )
    .passThroughOptions()
    .action(async (command: string[], options: WrapOptions) => {
      applyLogFormat(options);
      const record = new StderrRecord();
      const status = await wrap(command, options, () => record.stop());
      record.stop();
      // Nothing started: tell the host why on the connection it is waiting on, since it shows that.
      if (status === EXIT_BAD_INPUT) await tellHost(record.firstError() ?? "toolgate could not start");
      process.exit(status);
    });
}

async function wrap(command: string[], options: WrapOptions, started: () => void): Promise<number> {
  const log = (line: string, fields?: LogFields): void => logLine(line, fields);
  const usesConfigDir =
    options.server !== undefined || options.configDir !== undefined || hasSelectionFlags(options);
  // The configuration-directory loaders are only loaded when a directory is used.
  const planConfigDirWrap = usesConfigDir ? (await import("./wrapConfigDir.js")).planConfigDirWrap : null;
  const replan = (refusal: PlanRefusal = START_REFUSED): WrapPlan | null =>
    planConfigDirWrap !== null
      ? planConfigDirWrap(command, options, log, refusal)
      : planPlainWrap(command, options, log, refusal);
  if (options.auditArgs === true && options.auditLog === undefined) {
    log("--audit-args records arguments in the audit log: give the log with --audit-log FILE", {
      code: "E_USAGE",
    });
    return EXIT_BAD_INPUT;
  }
  const plan = replan();
  if (plan === null) return EXIT_BAD_INPUT;
  let approvalKeys;
  try {
    approvalKeys = loadApprovalKeys({
      keyFiles: options.approvalKey,
      ...(plan.approvalKeys === undefined
        ? {}
        : { configKeys: plan.approvalKeys.files, configDir: plan.approvalKeys.dir }),
      env: process.env,
    });
  } catch (error) {
    log(describeError(error).trimEnd());
    return EXIT_BAD_INPUT;
  }
  const states = requestStateCodec(process.env);
  if ("why" in states) {
    log(states.why);
    return EXIT_BAD_INPUT;
  }
  if (options.dryRun === true)
    log("dry run: every call and list is decided and recorded, and forwarded anyway", { code: "I_DRY_RUN" });

  const session = options.label ?? randomBytes(8).toString("hex");
  let audit: AuditSink | null;
  try {
    audit = openAuditLog(options.auditLog, options, session, log);
  } catch (error) {
    log(describeError(error).trimEnd());
    return EXIT_BAD_INPUT;
  }
  // Decision spans when OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) is set; nothing loaded otherwise.
  audit = await withTelemetry(audit, {
    log,
    ...(options.server === undefined ? {} : { server: options.server }),
  });

  // The self-test runs before the server is started for the client: nothing is answered until it passed.
  const selfTest = new WrapSelfTest({
    flag: options.selfTest,
    startupTimeoutMs: options.startupTimeout * 1000,
    log,
  });
  const tested = selfTest.file(plan) === null ? null : await plan.createGate();
  if (tested !== null && (await selfTest.run(plan, tested, START_REFUSED.consequence)).length > 0)
    return EXIT_BAD_INPUT;

  const serverId = plan.pins.serverId;
  // Set once the proxy exists: a reload replaces the gate under it, between decisions.
  let live: { gate: ReloadableGate; announce(): void } | null = null;
  const watched = [...plan.watch, ...selfTest.watched(plan)];
  const watcher =
    watched.length === 0
      ? null
      : watchForReload({
          paths: watched,
          log,
          reload: async (trigger) => {
            if (live === null) return;
            const { gate, announce } = live;
            const check = (next: WrapPlan, g: ToolGate) => selfTest.run(next, g, RELOAD_REFUSED.consequence);
            await reloadWrap({ replan, gate, audit, session, announce, log, selfTest: check }, trigger);
          },
        });
  const metered = await wrapMetrics(options, serverId, log);
  if (metered === "refused") return EXIT_BAD_INPUT;
  // From here on stderr is the running server's; the record is only for failures before it.
  started();
  try {
    return await runStdioWrap({
      command: plan.command,
      args: plan.args,
      ...(plan.env === undefined ? {} : { env: plan.env }),
      ...(plan.cwd === undefined ? {} : { cwd: plan.cwd }),
      maxFrameBytes: options.maxFrameBytes,
      keepHangup: watcher !== null,
      // A JSON log is all JSON: the server's own lines become entries of their own, marked as its.
      ...(logFormat() === "json"
        ? {
            serverStderr: (line: string) =>
              logLine(line, {
                code: "I_SERVER_STDERR",
                ...(serverId === undefined ? {} : { server: serverId }),
              }),
          }
        : {}),
      log,
      // Called right after the server is spawned: compiling the policy's schemas then overlaps with the
      // server's own start-up instead of adding to it. Nothing is read from either side before this returns.
      createHandler: async (peers) => {
        // Loaded once the server is spawned: the proxy's modules load while the server starts.
        const [{ PolicyProxy }, { MemoryApprovalClaims }] = await Promise.all([
          import("../wrap/policyProxy.js"),
          import("../session/approvalClaims.js"),
        ]);
        const gate = reloadableGate(tested ?? (await plan.createGate()));
        const proxy = new PolicyProxy(
          {
            gate: gate.gate,
            audit,
            session,
            dryRun: options.dryRun === true,
            auditArguments: options.auditArgs === true,
            verbose: options.verbose === true,
            log,
            ...(serverId === undefined ? {} : { serverId, serverIdFromPins: plan.pins.fromPins }),
            approvalTimeoutMs: options.approvalTimeout * 1000,
            approvals: { keys: approvalKeys, claims: new MemoryApprovalClaims() },
            requestStates: states.codec,
            // The server runs here, so it sees the same filesystem (restrict_scope `realpath: true`).
            realpath: localRealpath(plan.cwd ?? process.cwd()),
            startupTimeoutMs: plan.startupTimeoutMs ?? options.startupTimeout * 1000,
            startupSetting:
              plan.startupTimeoutMs === undefined
                ? "--startup-timeout <seconds>"
                : `"startup_timeout" in the mcp.json entry of '${options.server ?? ""}'`,
            ...(metered === null ? {} : { metrics: metered.meter.named }),
            onCatalog: (snapshot) => selfTest.fetched(plan, snapshot),
          },
          metered === null ? peers : metered.meter.peers(peers),
        );
        metered?.ready();
        live = { gate, announce: () => proxy.policyReloaded() };
        return metered === null ? proxy : metered.meter.handler(proxy);
      },
    });
  } finally {
    watcher?.close();
    await metered?.close();
    // Bounded: spans a collector has not taken within the wait are dropped, the exit is not held up.
    await closeAuditSink(audit);
  }
}

/** `wrap [--policy P] -- CMD ARGS…`: the command as given, the policy file alone. */
function planPlainWrap(
  command: readonly string[],
  options: WrapOptions,
  log: (line: string, fields?: LogFields) => void,
  refusal: PlanRefusal = START_REFUSED,
): WrapPlan | null {
  const policy = loadPolicy(options.policy, refusal);
  if (policy === "unusable") return null;
  if (policy !== null && options.label !== undefined) {
    for (const d of gatewayNameDiagnostics(policy, [options.label])) logDiagnostic(d);
  }
  const [program, ...args] = command;
  if (program === undefined) {
    log("wrap needs the server command after -- (or --server <name> to run one from mcp.json)", {
      code: "E_USAGE",
    });
    return null;
  }
  const pins = pinServer(options, policy, options.policy);
  if (pins === null) return null;
  return {
    command: program,
    args,
    pins,
    watch: options.policy === undefined ? [] : [options.policy],
    createGate: async () => {
      if (policy === null) return allowAllGate();
      // Loaded here, after the server is spawned: Ajv's start-up cost overlaps the server's.
      const { compilePolicy } = await import("../engine/policy/compile.js");
      // The label names the server as a configuration would, so a tools.deny entry written as serve shows
      // the tool (`<label>__<tool>`) denies it here too. Pins are bound to the server wrap runs (pins.serverId).
      return createPolicyGate(compilePolicy(policy), {
        ...(options.label === undefined ? {} : { gatewayName: options.label }),
        ...(pins.serverId === undefined ? {} : { serverId: pins.serverId }),
      });
    },
  };
}

/**
 * The policy file parsed and checked (diagnostics printed), `null` without `--policy`, or "unusable"
 * when it has errors: then the server is not started, never a silent allow-all.
 */
function loadPolicy(file: string | undefined, refusal: PlanRefusal): Policy | null | "unusable" {
  if (file === undefined) return null;
  const { policy, diagnostics } = loadPolicyFile(file);
  for (const diagnostic of diagnostics) logDiagnostic(diagnostic);
  if (policy === null) {
    const message = `policy '${file}' cannot be used; ${refusal.consequence}`;
    logEntry({ level: "error", code: refusal.code, message }, `toolgate: ${message}\n`);
    return "unusable";
  }
  return policy;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError("expected a positive integer");
  }
  return n;
}

/**
 * `--metrics-port`: wrap's decisions, call times and server state on a listener of their own (prom-client
 * is loaded only then). `null` without the flag; "refused" when the port cannot be had (said on stderr).
 */
async function wrapMetrics(
  options: WrapOptions,
  serverId: string | undefined,
  log: (line: string) => void,
): Promise<{ meter: WrapMetrics; ready(): void; close(): Promise<void> } | null | "refused"> {
  if (options.metricsPort === undefined) return null;
  const [{ PromMetrics }, { Readiness }, { startMetricsListener }, { WrapMetrics }] = await Promise.all([
    import("../ops/promMetrics.js"),
    import("../ops/readiness.js"),
    import("../ops/metricsListener.js"),
    import("../wrap/wrapMetrics.js"),
  ]);
  const metrics = new PromMetrics();
  // wrap keeps no state store and requires no server but its own: ready once its proxy is in place.
  const readiness = new Readiness({
    stateStore: () => Promise.resolve(true),
    requiredServers: [],
    hasCatalog: () => true,
  });
  try {
    const listener = await startMetricsListener({
      host: options.metricsHost,
      port: options.metricsPort,
      metrics,
      readiness,
    });
    log(`metrics on ${listener.origin}/metrics`);
    return {
      meter: new WrapMetrics(metrics, options.server ?? options.label ?? serverId ?? ""),
      ready: () => readiness.setConfigured(),
      close: async () => {
        metrics.close();
        await listener.close();
      },
    };
  } catch (error) {
    log(
      `cannot listen on ${options.metricsHost}:${options.metricsPort} (--metrics-port): ${error instanceof Error ? error.message : String(error)}`,
    );
    return "refused";
  }
}
