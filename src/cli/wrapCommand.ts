import { randomBytes } from "node:crypto";
import { InvalidArgumentError, type Command } from "commander";
import { JsonlFileSink } from "../audit/jsonlFileSink.js";
import type { AuditSink } from "../audit/sink.js";
import { formatDiagnostic } from "../config/diagnostics.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import type { Policy } from "../config/policyModel.js";
import { DEFAULT_MAX_FRAME_BYTES } from "../gateway/frames.js";
import { PolicyProxy } from "../gateway/policyProxy.js";
import { compilePolicy } from "../policy/compile.js";
import { allowAllGate, createPolicyGate } from "../policy/policyGate.js";
import { runStdioWrap } from "../transports/stdioWrap.js";

interface WrapOptions {
  policy?: string;
  auditLog?: string;
  dryRun?: boolean;
  verbose?: boolean;
  label?: string;
  maxFrameBytes: number;
}

/** Exit status when toolgate itself refuses to start (bad policy, unwritable audit log, bad flags). */
const EXIT_BAD_INPUT = 2;

/** `toolgate wrap [options] -- CMD [ARGS…]`: the stdio policy proxy around one MCP server. */
export function registerWrapCommand(program: Command): void {
  program
    .command("wrap")
    .description("run an MCP server behind the policy: filtered tools/list, decided tools/call, audit log")
    .option("--policy <file>", "policy file (v2 or legacy v1); without it every tool is allowed")
    .option("--audit-log <file>", "append one JSON line per decision to this file")
    .option(
      "--dry-run",
      "decide and record, but filter and block nothing (audit says would-deny / would-hide)",
    )
    .option("--verbose", "one line per decision on stderr")
    .option("--label <id>", "session label recorded in the audit log (default: a random id)")
    .option(
      "--max-frame-bytes <n>",
      "longest accepted JSON-RPC line, either direction",
      positiveInteger,
      DEFAULT_MAX_FRAME_BYTES,
    )
    .argument("<command...>", "the server command and its arguments (after --)")
    .usage("[options] -- <server-command> [args...]")
    .passThroughOptions()
    .action(async (command: string[], options: WrapOptions) => {
      process.exit(await wrap(command, options));
    });
}

async function wrap(command: string[], options: WrapOptions): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(`toolgate: ${line}\n`);
  };
  const policy = loadPolicy(options.policy);
  if (policy === "unusable") return EXIT_BAD_INPUT;

  let audit: AuditSink | null = null;
  if (options.auditLog !== undefined) {
    try {
      audit = new JsonlFileSink(options.auditLog);
    } catch (error) {
      log(error instanceof Error ? error.message : String(error));
      return EXIT_BAD_INPUT;
    }
  }

  const [program, ...args] = command;
  if (program === undefined) {
    log("wrap needs the server command after --");
    return EXIT_BAD_INPUT;
  }
  try {
    return await runStdioWrap({
      command: program,
      args,
      maxFrameBytes: options.maxFrameBytes,
      log,
      // Called right after the server is spawned: compiling the policy's schemas then overlaps with the
      // server's own start-up instead of adding to it. Nothing is read from either side before this returns.
      createHandler: (peers) =>
        new PolicyProxy(
          {
            gate: policy === null ? allowAllGate() : createPolicyGate(compilePolicy(policy)),
            audit,
            session: options.label ?? randomBytes(8).toString("hex"),
            dryRun: options.dryRun === true,
            verbose: options.verbose === true,
            log,
          },
          peers,
        ),
    });
  } finally {
    audit?.close();
  }
}

/**
 * The policy file parsed and checked (diagnostics printed), `null` without `--policy`, or "unusable"
 * when it has errors: then the server is not started, never a silent allow-all.
 */
function loadPolicy(file: string | undefined): Policy | null | "unusable" {
  if (file === undefined) return null;
  const { policy, diagnostics } = loadPolicyFile(file);
  for (const diagnostic of diagnostics) process.stderr.write(formatDiagnostic(diagnostic) + "\n");
  if (policy === null) {
    process.stderr.write(`toolgate: policy '${file}' cannot be used; the server was not started\n`);
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
