import { InvalidArgumentError, type Command } from "commander";
import { loadPolicyFile } from "../config/policyLoader.js";
import { loadCatalogFile } from "../config/catalogFile.js";
import { compilePolicy, type CompiledPolicy } from "../engine/policy/compile.js";
import { effectsOf, type DiffServer } from "../engine/policy/diffModel.js";
import { diffPolicies } from "../engine/policy/policyDiff.js";
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from "../upstream/upstream.js";
import { localRealpath } from "../upstream/localRealpath.js";
import { printDiagnostics } from "./contextOptions.js";
import { describeError, errorText, printError } from "./errorReport.js";
import { readLiveCatalog } from "./pin/liveCatalog.js";
import { defaultServerId, resolveTarget } from "./pin/liveTarget.js";
import { policyDiffJson, renderPolicyDiff } from "./render/policyDiffView.js";

type FailOn = "newly-allowed" | "newly-denied" | "any";

interface DiffFlags {
  catalog?: string;
  server?: string;
  format: "text" | "json";
  failOn?: FailOn;
  timeout: number;
}

/** No change the --fail-on asks about (or no --fail-on). */
const EXIT_OK = 0;
/** --fail-on: a change of that kind was found. */
const EXIT_CHANGED = 1;
/** Bad flags, a policy or catalog file with errors, or a server that could not be read. */
const EXIT_BAD_INPUT = 2;

/**
 * `toolgate policy diff OLD NEW (--catalog FILE | -- CMD)`: what replacing policy OLD by NEW changes for
 * each tool of a catalog. This file parses and renders; the comparison is engine/policy/policyDiff.ts.
 */
export function registerPolicyDiff(policy: Command): void {
  policy
    .command("diff")
    .description(
      "what replacing policy OLD by NEW changes for each tool of a catalog: shown or hidden, approval, schema (with an example argument), scope, redaction, pins, limits",
    )
    .argument("<old>", "the policy in force")
    .argument("<new>", "the candidate policy")
    .argument("[command...]", "a stdio server whose live catalog to compare over (after --)")
    .option("--catalog <file>", "a saved catalog (JSON, as `toolgate catalog save` writes it)")
    .option(
      "--server <name>",
      "with -- CMD: the server's name as pins (server_id) name it (default: the name the server gives itself)",
    )
    .option("--format <format>", "text or json", formatOption, "text")
    .option(
      "--fail-on <kind>",
      "exit 1 when a change of this kind is found: newly-allowed, newly-denied or any",
      failOnOption,
    )
    .option(
      "--timeout <ms>",
      "bound on the server's start-up and each tools/list page",
      milliseconds,
      DEFAULT_UPSTREAM_TIMEOUT_MS,
    )
    .usage("[options] OLD NEW (--catalog FILE | -- <server-command> [args...])")
    .action(async (oldFile: string, newFile: string, command: string[], flags: DiffFlags) => {
      process.exit(await diff(oldFile, newFile, command, flags));
    });
}

async function diff(oldFile: string, newFile: string, command: string[], flags: DiffFlags): Promise<number> {
  if ((flags.catalog === undefined) === (command.length === 0)) {
    printError(
      errorText(
        "E_USAGE",
        "policy diff needs exactly one catalog: --catalog FILE or a server command after --",
        "toolgate policy diff OLD NEW --catalog catalog.json, or toolgate policy diff OLD NEW -- npx -y @modelcontextprotocol/server-filesystem /srv",
      ),
    );
    return EXIT_BAD_INPUT;
  }
  const old = load(oldFile);
  const next = load(newFile);
  if (old === null || next === null) return EXIT_BAD_INPUT;
  const servers =
    flags.catalog === undefined ? await liveServers(command, flags) : savedServers(flags.catalog);
  if (servers === null) return EXIT_BAD_INPUT;

  const result = diffPolicies(old, next, servers, {
    // A catalog file holds configured servers, named as serve names their tools; a command is one wrapped server.
    gatewayNames: flags.catalog !== undefined,
    realpath: localRealpath(),
  });
  const files = { old: oldFile, new: newFile, oldDigest: old.policy.digest, newDigest: next.policy.digest };
  process.stdout.write(
    flags.format === "json"
      ? JSON.stringify(policyDiffJson(result, files), null, 2) + "\n"
      : renderPolicyDiff(result, files),
  );
  if (flags.failOn === undefined) return EXIT_OK;
  const effects = effectsOf(result);
  const failing = flags.failOn === "any" ? effects.size > 0 : effects.has(flags.failOn);
  return failing ? EXIT_CHANGED : EXIT_OK;
}

/** Loaded and compiled, every diagnostic printed with file:line; null on an error. */
function load(file: string): CompiledPolicy | null {
  const { policy, diagnostics } = loadPolicyFile(file);
  printDiagnostics(diagnostics);
  return policy === null ? null : compilePolicy(policy);
}

function savedServers(file: string): DiffServer[] | null {
  const { servers, diagnostics } = loadCatalogFile(file);
  printDiagnostics(diagnostics);
  return servers;
}

async function liveServers(command: string[], flags: DiffFlags): Promise<DiffServer[] | null> {
  const target = resolveTarget(command, {}, "policy diff");
  if (target === null) return null;
  try {
    const catalog = await readLiveCatalog(target, flags.timeout);
    const name = flags.server ?? defaultServerId(catalog, target);
    return [{ name, tools: catalog.tools, rawSchemas: catalog.rawSchemas }];
  } catch (error) {
    printError(describeError(error));
    return null;
  }
}

function formatOption(value: string): "text" | "json" {
  if (value !== "text" && value !== "json") throw new InvalidArgumentError("expected text or json");
  return value;
}

function failOnOption(value: string): FailOn {
  if (value !== "newly-allowed" && value !== "newly-denied" && value !== "any") {
    throw new InvalidArgumentError("expected newly-allowed, newly-denied or any");
  }
  return value;
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n < 1) throw new InvalidArgumentError("expected milliseconds (> 0)");
  return n;
}
