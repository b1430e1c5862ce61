import { isAbsolute, join } from "node:path";
import { loadConfigDir } from "../config/configDir.js";
import type { PolicyCatalog } from "../config/catalogFile.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import { loadPolicyTestFile, type PolicyTestCase, type PolicyTestFile } from "../config/policyTestFile.js";
import { loadTokensFile, type PrincipalEntry, type TokenEntry } from "../config/tokensFile.js";
import type { ConfigDir } from "../engine/model/configDir.js";
import type { RealpathHook } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import { hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import { ToolgateError } from "../engine/errors.js";
import { compilePolicy } from "../engine/policy/compile.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { evaluateCase, type CaseGates, type CaseResult } from "./policyCase.js";
import { ContextResolver, FixedGateResolver } from "./policyTestContext.js";

/**
 * `runPolicyTests`: a test file's cases against a policy (or a configuration directory and its policy) over
 * a catalog, each context resolved as `serve` resolves a client's (tokens file entry, or role, agent,
 * session, skills, node) into the gates of its enabled servers (serverFilter). Used by `toolgate policy
 * test`, and by the start-up self-test of wrap and serve, which test their own configuration ({@link
 * TestSubject}) instead of what the file names.
 */

/**
 * What a self-test tests: the gateway's own configuration, already loaded, instead of the test file's
 * `policy:`/`config_dir:` (which are then not read).
 */
export type TestSubject =
  /** serve: its configuration directory and policy; a case's context is resolved as a client's is. */
  | { kind: "config"; config: ConfigDir; policy: ActivePolicy | null }
  /** wrap: its one server under the gate it decides with, in the context its flags give (cases name none). */
  | { kind: "gate"; server: string; gate: ToolGate; policy: string | null };

export interface PolicyTestOptions {
  /** Wins over the test file's `policy:`. */
  policy?: string;
  /** Wins over the test file's `config_dir:`. */
  configDir?: string;
  /** The tokens file `context: {token: NAME}` names entries of. */
  tokens?: string;
  /**
   * The catalog, or how to fetch it live for the configuration (`null` without a directory); `named`: the
   * servers the cases name (a case naming none counted as the only configured server, when there is one).
   */
  catalog: PolicyCatalog | ((config: ConfigDir | null, named: readonly string[]) => Promise<PolicyCatalog>);
  realpath?: RealpathHook;
  /** The gateway's own configuration (the self-test): wins over the file's keys and `policy`/`configDir`. */
  subject?: TestSubject;
}

export type PolicyTestRun =
  | { ok: false; diagnostics: Diagnostic[] }
  | { ok: true; file: string; policy: string | null; results: CaseResult[]; warnings: Diagnostic[] };

export async function runPolicyTests(file: string, options: PolicyTestOptions): Promise<PolicyTestRun> {
  const { tests, diagnostics } = loadPolicyTestFile(file);
  if (tests === null) return { ok: false, diagnostics };
  if (options.subject !== undefined) return runOnSubject(tests, options.subject, options);
  const dir = options.configDir ?? tests.configDir;
  const fail = (message: string, hint: string): PolicyTestRun => ({
    ok: false,
    diagnostics: [
      { severity: "error", code: "E_POLICY_TEST_FILE", message, file, line: 0, column: 0, path: "", hint },
    ],
  });
  let base: ConfigDir | null = null;
  if (dir !== undefined) {
    const loaded = loadConfigDir(dir, { skills: [] });
    if (hasErrors(loaded.diagnostics)) return { ok: false, diagnostics: loaded.diagnostics };
    base = loaded.config;
  }
  const policyPath = options.policy ?? tests.policy ?? configPolicy(base);
  if (policyPath === undefined && base === null) {
    return fail(
      "the test file names neither a policy nor a configuration directory",
      "add `policy: FILE` or `config_dir: DIR` to the file, or pass --policy / --config-dir",
    );
  }
  let policy: ActivePolicy | null = null;
  const warnings: Diagnostic[] = [];
  if (policyPath !== undefined) {
    const loaded = loadPolicyFile(policyPath);
    if (loaded.policy === null) return { ok: false, diagnostics: loaded.diagnostics };
    warnings.push(...loaded.diagnostics);
    policy = { compiled: compilePolicy(loaded.policy), shownPath: policyPath };
  }
  let tokens: { entries: TokenEntry[]; principals: PrincipalEntry[] } | null = null;
  if (options.tokens !== undefined) {
    const loaded = loadTokensFile(options.tokens);
    if (hasErrors(loaded.diagnostics)) return { ok: false, diagnostics: loaded.diagnostics };
    tokens = loaded;
  }
  const configured = base === null ? null : base.mcp.servers.map((s) => s.name);
  const catalog = await catalogFor(tests, options, base, configured);
  if ("diagnostics" in catalog) return { ok: false, diagnostics: catalog.diagnostics };
  const resolver = new ContextResolver(base, policy, catalog.catalog, tokens, options.tokens);
  const results = decide(tests, resolver, catalog.catalog, options);
  return { ok: true, file, policy: policyPath ?? null, results, warnings };
}

/** The self-test: the cases over the gateway's own configuration, the test file's keys unread. */
async function runOnSubject(
  tests: PolicyTestFile,
  subject: TestSubject,
  options: PolicyTestOptions,
): Promise<PolicyTestRun> {
  const tokens = options.tokens === undefined ? null : loadTokensFile(options.tokens);
  if (tokens !== null && hasErrors(tokens.diagnostics)) return { ok: false, diagnostics: tokens.diagnostics };
  const base = subject.kind === "config" ? subject.config : null;
  const configured =
    subject.kind === "config" ? subject.config.mcp.servers.map((s) => s.name) : [subject.server];
  const catalog = await catalogFor(tests, options, base, configured);
  if ("diagnostics" in catalog) return { ok: false, diagnostics: catalog.diagnostics };
  const resolver =
    subject.kind === "config"
      ? new ContextResolver(subject.config, subject.policy, catalog.catalog, tokens, options.tokens)
      : new FixedGateResolver(subject.server, subject.gate);
  const policy = subject.kind === "gate" ? subject.policy : (subject.policy?.shownPath ?? null);
  return {
    ok: true,
    file: tests.file,
    policy,
    results: decide(tests, resolver, catalog.catalog, options),
    warnings: [],
  };
}

function decide(
  tests: PolicyTestFile,
  resolver: { resolve(c: PolicyTestCase): CaseGates | { message: string; hint?: string } },
  catalog: PolicyCatalog,
  options: PolicyTestOptions,
): CaseResult[] {
  return tests.cases.map((c) => {
    const gates = resolver.resolve(c);
    if ("message" in gates) return { case: c, kind: "unusable" as const, ...gates };
    return evaluateCase(
      c,
      gates,
      catalog,
      options.realpath === undefined ? {} : { realpath: options.realpath },
    );
  });
}

/** The catalog given, or fetched for the servers the cases name; a fetch that fails is one diagnostic. */
async function catalogFor(
  tests: PolicyTestFile,
  options: PolicyTestOptions,
  base: ConfigDir | null,
  configured: readonly string[] | null,
): Promise<{ catalog: PolicyCatalog } | { diagnostics: Diagnostic[] }> {
  if (typeof options.catalog !== "function") return { catalog: options.catalog };
  const only = configured?.length === 1 ? configured[0] : undefined;
  const named = [...new Set(tests.cases.flatMap((c) => c.request.server ?? only ?? []))];
  try {
    return { catalog: await options.catalog(base, named) };
  } catch (error) {
    const e = error instanceof ToolgateError ? error : null;
    return {
      diagnostics: [
        {
          severity: "error",
          code: e?.code ?? "E_UPSTREAM_CONNECT",
          message: `cannot read the catalog: ${error instanceof Error ? error.message : String(error)}`,
          file: tests.file,
          line: 0,
          column: 0,
          path: "",
          ...(e?.hint === undefined ? {} : { hint: e.hint }),
        },
      ],
    };
  }
}

function configPolicy(config: ConfigDir | null): string | undefined {
  const written = config?.global.policy;
  if (written === undefined || written === null) return undefined;
  return isAbsolute(written.path) ? written.path : join(config!.dir, written.path);
}
