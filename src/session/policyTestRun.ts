import { isAbsolute, join } from "node:path";
import { loadConfigDir } from "../config/configDir.js";
import type { PolicyCatalog } from "../config/catalogFile.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import { loadPolicyTestFile } from "../config/policyTestFile.js";
import { loadTokensFile, type PrincipalEntry, type TokenEntry } from "../config/tokensFile.js";
import type { ConfigDir } from "../engine/model/configDir.js";
import type { RealpathHook } from "../engine/model/decision.js";
import { hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import { ToolgateError } from "../engine/errors.js";
import { compilePolicy } from "../engine/policy/compile.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { evaluateCase, type CaseResult } from "./policyCase.js";
import { ContextResolver } from "./policyTestContext.js";

/**
 * `runPolicyTests`: a test file's cases against a policy (or a configuration directory and its policy) over
 * a catalog, each context resolved as `serve` resolves a client's (tokens file entry, or role, agent,
 * session, skills, node) into the gates of its enabled servers (serverFilter). Used by `toolgate policy
 * test`; meant for the start-up self-test of wrap and serve as well.
 */

export interface PolicyTestOptions {
  /** Wins over the test file's `policy:`. */
  policy?: string;
  /** Wins over the test file's `config_dir:`. */
  configDir?: string;
  /** The tokens file `context: {token: NAME}` names entries of. */
  tokens?: string;
  /** The catalog, or how to fetch it live for the configuration (`null` without a directory). */
  catalog: PolicyCatalog | ((config: ConfigDir | null) => Promise<PolicyCatalog>);
  realpath?: RealpathHook;
}

export type PolicyTestRun =
  | { ok: false; diagnostics: Diagnostic[] }
  | { ok: true; file: string; policy: string | null; results: CaseResult[]; warnings: Diagnostic[] };

export async function runPolicyTests(file: string, options: PolicyTestOptions): Promise<PolicyTestRun> {
  const { tests, diagnostics } = loadPolicyTestFile(file);
  if (tests === null) return { ok: false, diagnostics };
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
  let catalog: PolicyCatalog;
  try {
    catalog = typeof options.catalog === "function" ? await options.catalog(base) : options.catalog;
  } catch (error) {
    const e = error instanceof ToolgateError ? error : null;
    return {
      ok: false,
      diagnostics: [
        {
          severity: "error",
          code: e?.code ?? "E_UPSTREAM_CONNECT",
          message: `cannot read the catalog: ${error instanceof Error ? error.message : String(error)}`,
          file,
          line: 0,
          column: 0,
          path: "",
          ...(e?.hint === undefined ? {} : { hint: e.hint }),
        },
      ],
    };
  }
  const resolver = new ContextResolver(base, policy, catalog, tokens, options.tokens);
  const results = tests.cases.map((c) => {
    const gates = resolver.resolve(c);
    if ("message" in gates) return { case: c, kind: "unusable" as const, ...gates };
    return evaluateCase(
      c,
      gates,
      catalog,
      options.realpath === undefined ? {} : { realpath: options.realpath },
    );
  });
  return { ok: true, file, policy: policyPath ?? null, results, warnings };
}

function configPolicy(config: ConfigDir | null): string | undefined {
  const written = config?.global.policy;
  if (written === undefined || written === null) return undefined;
  return isAbsolute(written.path) ? written.path : join(config!.dir, written.path);
}
