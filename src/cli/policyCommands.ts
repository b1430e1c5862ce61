import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { appendAll, formatDiagnostic, hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import type { Policy } from "../engine/model/policy.js";
import { parseStrictJson } from "../engine/json/strictJson.js";
import { compilePolicy, type CompiledPolicy } from "../engine/policy/compile.js";
import { findApprovalArtifact, IN_ARGUMENTS_PROBLEM, stripApproval } from "../engine/controls/approval.js";
import { parseRfc3339 } from "../engine/controls/rfc3339.js";
import { localRealpath } from "../upstream/localRealpath.js";
import { decideCall, type CallArguments } from "../engine/policy/decide.js";
import type { CallContext } from "../engine/model/decision.js";
import { lintPolicy } from "../config/policyLint.js";
import { gatewayNameDiagnostics } from "../config/policyGatewayNames.js";
import { loadConfigDir } from "../config/configDir.js";
import { printDiagnostics } from "./contextOptions.js";
import { serverNames } from "./contextLoader.js";
import { decisionJson } from "./render/decisionJson.js";
import { loadApprovalKeys } from "./approvalKeys.js";
import { registerPolicyInit } from "./policyInitCommand.js";
import { registerPolicySuggest } from "./policySuggestCommand.js";
import { registerPolicyImport } from "./policyImportCommand.js";
import { registerPolicyMigrate } from "./policyMigrateCommand.js";
import { registerPolicyDiff } from "./policyDiffCommand.js";
import { registerPolicyTest } from "./policyTestCommand.js";
import { POLICY_EXIT } from "./policy/policyOutput.js";
import { checkItem, itemDecisionJson } from "./policyCheckItem.js";

/** Exit codes of `toolgate policy …`. */
const EXIT = POLICY_EXIT;

export function registerPolicyCommands(program: Command): void {
  const policy = program
    .command("policy")
    .description(
      "check, validate and migrate policy files; start one from a live server, an audit log or another tool's allowlist",
    );
  registerPolicyInit(policy);
  registerPolicySuggest(policy);
  registerPolicyImport(policy);

  policy
    .command("check")
    .description(
      "decide one tool call (or one resource or prompt) against a policy and print the decision as JSON",
    )
    .requiredOption("--policy <file>", "policy file (v2 or legacy v1)")
    .option("--tool <name>", "tool name")
    .option("--resource <uri>", "a resource URI or URI template, decided by the policy's resources: section")
    .option("--prompt <name>", "a prompt name, decided by the policy's prompts: section")
    .option("--args <json>", "tool arguments as a JSON object", "{}")
    .option("--prior-calls <n>", "tool calls this session already made (for limits)", nonNegativeInt, 0)
    .option("--prior-requests <n>", "requests this session already made (for limits)", nonNegativeInt, 0)
    .option(
      "--approval <file>",
      "an approval artifact (the JSON object a call carries as _meta.approval) to check for approval_required tools",
    )
    .option("--now <time>", "judge the approval artifact at this RFC 3339 time instead of the current time")
    .option(
      "--approval-key <file>",
      "an Ed25519 public key (PEM) the artifact may be signed with (repeatable; also $TOOLGATE_APPROVAL_SECRET for HMAC)",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option(
      "--can-elicit",
      "decide as for a client that declared MCP elicitation: a call without a valid artifact is allowed pending the person's accept",
    )
    .option(
      "--input-schema <file>",
      "the server's inputSchema for the tool (JSON), to find path and resource arguments as wrap does",
    )
    .action((opts: CheckOptions) => {
      const targets = [opts.tool, opts.resource, opts.prompt].filter((t) => t !== undefined);
      if (targets.length !== 1) fail("give exactly one of --tool, --resource, --prompt");
      const compiled = loadOrExit(opts.policy);
      if (opts.tool === undefined) {
        const item = checkItem(
          compiled,
          opts.resource !== undefined ? { resource: opts.resource } : { prompt: opts.prompt! },
        );
        process.stdout.write(JSON.stringify(itemDecisionJson(item)) + "\n");
        process.exitCode = item.decision === "allow" ? EXIT.ok : EXIT.denied;
        return;
      }
      // Syntax errors are bad input (exit 2); duplicate keys and excessive depth are decided (denied).
      const parsed = parseStrictJson(opts.args);
      if (!parsed.ok && parsed.code === "E_JSON_SYNTAX") {
        fail(`--args is not valid JSON: ${parsed.message}`);
      }
      const { args, context } = checkContext(opts, parsed.ok ? parsed.value : undefined);
      const decision = decideCall(
        compiled,
        opts.tool,
        args,
        { toolCalls: opts.priorCalls, requests: opts.priorRequests },
        context,
      );
      process.stdout.write(JSON.stringify(decisionJson(decision)) + "\n");
      process.exitCode = decision.decision === "allow" ? EXIT.ok : EXIT.denied;
    });

  policy
    .command("validate")
    .description("parse, check and lint a policy file; exit 0 when valid, 2 when not")
    .requiredOption("--input <file>", "policy file")
    .option("--deny-deprecations", "treat deprecated constructs (v1 format, root allow/deny) as errors")
    .option("--format <format>", "text or json", formatOption, "text")
    .option(
      "--config-dir <dir>",
      "also check the policy against this configuration's servers (entries written as serve names tools)",
    )
    .action(
      (opts: { input: string; denyDeprecations?: boolean; format: "text" | "json"; configDir?: string }) => {
        const servers = opts.configDir === undefined ? [] : configuredServers(opts.configDir);
        if (servers === null) {
          process.exitCode = EXIT.badInput;
          return;
        }
        const { policy, diagnostics } = validate(opts.input, opts.denyDeprecations === true, servers);
        const valid = !hasErrors(diagnostics);
        if (opts.format === "json") {
          process.stdout.write(
            JSON.stringify({
              file: opts.input,
              valid,
              version: policy?.sourceVersion ?? null,
              errors: diagnostics.filter((d) => d.severity === "error").length,
              warnings: diagnostics.filter((d) => d.severity === "warning").length,
              diagnostics,
            }) + "\n",
          );
        } else {
          for (const d of diagnostics) process.stderr.write(formatDiagnostic(d) + "\n");
          const warnings = diagnostics.filter((d) => d.severity === "warning").length;
          const errors = diagnostics.length - warnings;
          process.stdout.write(
            valid
              ? `${opts.input}: valid (version ${policy?.sourceVersion}, ${plural(warnings, "warning")})\n`
              : `${opts.input}: invalid (${plural(errors, "error")}, ${plural(warnings, "warning")})\n`,
          );
        }
        process.exitCode = valid ? EXIT.ok : EXIT.badInput;
      },
    );

  registerPolicyMigrate(policy);
  registerPolicyDiff(policy);
  registerPolicyTest(policy);
}

interface CheckOptions {
  policy: string;
  tool?: string;
  resource?: string;
  prompt?: string;
  args: string;
  priorCalls: number;
  priorRequests: number;
  approval?: string;
  approvalKey: string[];
  now?: string;
  canElicit?: boolean;
  inputSchema?: string;
}

/**
 * The arguments and call context of `policy check`, as `wrap` builds them: `--approval` stands for
 * `params._meta.approval`, checked against the keys of `--approval-key` and TOOLGATE_APPROVAL_SECRET (an
 * unsigned artifact approves nothing); one in `arguments._meta.approval` is stripped and never approves.
 * Bad files, keys and times exit 2.
 */
function checkContext(
  opts: CheckOptions,
  parsedArgs: unknown,
): { args: CallArguments; context: CallContext } {
  // A `realpath: true` scope resolves links on this machine, as wrap does for the server it starts here.
  const context: CallContext = { canElicit: opts.canElicit === true, realpath: localRealpath() };
  try {
    context.approvalKeys = loadApprovalKeys({ keyFiles: opts.approvalKey, env: process.env });
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if (opts.now !== undefined) {
    const ms = parseRfc3339(opts.now);
    if (ms === null) {
      fail(
        `--now must be an RFC 3339 date-time with an offset, such as 2026-01-31T12:00:00Z; got '${opts.now}'`,
      );
    }
    context.now = new Date(ms);
  }
  if (opts.inputSchema !== undefined) context.inputSchema = readJsonFile(opts.inputSchema, "--input-schema");
  const supplied =
    opts.approval === undefined ? undefined : { approval: readJsonFile(opts.approval, "--approval") };
  if (parsedArgs === undefined) {
    // Arguments that are not acceptable JSON go to the decision as text, which denies them with the reason.
    if (supplied !== undefined) context.approval = supplied.approval;
    return { args: { kind: "json", text: opts.args }, context };
  }
  const params: Record<string, unknown> = { arguments: parsedArgs };
  if (supplied !== undefined) params._meta = supplied;
  const lookup = findApprovalArtifact(params);
  if (lookup.kind === "found") context.approval = lookup.artifact;
  else if (lookup.kind === "in-arguments") context.approvalProblem = IN_ARGUMENTS_PROBLEM;
  const stripped = lookup.kind === "none" ? params : stripApproval(params);
  return { args: { kind: "value", value: stripped.arguments }, context };
}

function readJsonFile(file: string, flag: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    fail(`${flag} ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = parseStrictJson(text);
  if (!parsed.ok) fail(`${flag} ${file} is not acceptable JSON: ${parsed.message}`);
  return parsed.value;
}

/** Load + compile, with every diagnostic of validation (lint warnings, schemas that do not compile). */
export function validate(
  file: string,
  denyDeprecations: boolean,
  servers: readonly string[] = [],
): { policy: Policy | null; diagnostics: Diagnostic[] } {
  const { policy, diagnostics } = loadPolicyFile(file);
  const all = [...diagnostics];
  if (policy !== null) {
    appendAll(all, lintPolicy(policy));
    appendAll(all, gatewayNameDiagnostics(policy, servers));
    for (const [tool, schema] of compilePolicy(policy).schemas) {
      if (schema.ok) continue;
      const at = policy.schemas[tool]?.at;
      all.push({
        severity: "error",
        code: "E_SCHEMA_COMPILE",
        message: `schema for '${tool}' does not compile: ${schema.error}; calls to it will be denied`,
        file: at?.file ?? file,
        line: at?.line ?? 0,
        column: at?.column ?? 0,
        path: at?.path ?? `schemas.${tool}`,
      });
    }
  }
  if (denyDeprecations) {
    for (const d of all) {
      if (d.code.startsWith("W_DEPRECATED")) {
        d.severity = "error";
        d.hint = d.hint ?? "run `toolgate policy migrate` to rewrite the file in the v2 form";
      }
    }
  }
  all.sort((a, b) => a.line - b.line || a.column - b.column);
  return { policy, diagnostics: all };
}

function loadOrExit(file: string): CompiledPolicy {
  const { policy, diagnostics } = loadPolicyFile(file);
  printDiagnostics(diagnostics);
  if (policy === null) process.exit(EXIT.badInput);
  return compilePolicy(policy);
}

function fail(message: string): never {
  process.stderr.write(`toolgate: ${message}\n`);
  process.exit(EXIT.badInput);
}

function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) fail(`expected a non-negative integer, got '${value}'`);
  return Number(value);
}

function formatOption(value: string): "text" | "json" {
  if (value !== "text" && value !== "json") fail(`--format must be text or json, got '${value}'`);
  return value;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The mcp.json names of the configuration in `dir`; null (diagnostics printed) when it has errors. */
function configuredServers(dir: string): string[] | null {
  const { config, diagnostics } = loadConfigDir(dir, { skills: [] });
  printDiagnostics(diagnostics);
  if (hasErrors(diagnostics)) {
    process.stderr.write(`toolgate: the configuration in ${dir} has errors (see above)\n`);
    return null;
  }
  return serverNames(config);
}
