import { isAbsolute, join } from "node:path";
import { loadConfigDir, loadSession } from "../config/configDir.js";
import type { PolicyCatalog } from "../config/catalogFile.js";
import { loadPolicyFile } from "../config/policyLoader.js";
import { loadPolicyTestFile, type PolicyTestCase, type TestContext } from "../config/policyTestFile.js";
import { loadTokensFile, type PrincipalEntry, type TokenEntry } from "../config/tokensFile.js";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import type { RealpathHook } from "../engine/model/decision.js";
import { formatDiagnostic, hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import type { ToolGate } from "../engine/model/gate.js";
import { ToolgateError } from "../engine/errors.js";
import { closestName } from "../engine/text/didYouMean.js";
import { compilePolicy } from "../engine/policy/compile.js";
import { enabledServers } from "../engine/policy/enabledServers.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { allowAllGate, createPolicyGate } from "../engine/policy/policyGate.js";
import { serverFilter } from "../engine/policy/serverFilter.js";
import { evaluateCase, type CaseGates, type CaseResult } from "./policyCase.js";

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

type Resolved = CaseGates | { message: string; hint?: string };

/** A case's context → the gates of what it enables; one configuration load per distinct context. */
class ContextResolver {
  private readonly cache = new Map<string, Resolved>();

  constructor(
    private readonly base: ConfigDir | null,
    private readonly policy: ActivePolicy | null,
    private readonly catalog: PolicyCatalog,
    private readonly tokens: { entries: TokenEntry[]; principals: PrincipalEntry[] } | null,
    private readonly tokensFile: string | undefined,
  ) {}

  resolve(c: PolicyTestCase): Resolved {
    const selection = this.selectionOf(c.context);
    if ("message" in selection) return selection;
    const key = JSON.stringify(selection);
    let found = this.cache.get(key);
    if (found === undefined) {
      found = this.base === null ? this.policyOnly(selection) : this.fromConfig(this.base, selection);
      this.cache.set(key, found);
    }
    return found;
  }

  private selectionOf(context: TestContext): ContextSelection | { message: string; hint?: string } {
    if (context.token === undefined) {
      const { token: _token, ...rest } = context;
      return { ...rest, skills: [...context.skills] };
    }
    if (this.tokens === null) {
      return { message: `context.token '${context.token}' needs a tokens file`, hint: "pass --tokens FILE" };
    }
    const all = [...this.tokens.entries, ...this.tokens.principals];
    const entry = all.find((e) => e.label === context.token);
    if (entry === undefined) {
      const close = closestName(
        context.token,
        all.map((e) => e.label),
      );
      return {
        message: `the tokens file ${this.tokensFile} has no entry named '${context.token}'`,
        hint:
          close === undefined ? `names: ${all.map((e) => e.label).join(", ")}` : `did you mean '${close}'?`,
      };
    }
    if (!entry.rights.mcp) {
      return { message: `the token '${context.token}' has no use: mcp (it cannot list or call tools)` };
    }
    return entry.selection;
  }

  /** Without a configuration directory: the policy alone in front of each catalog server, as wrap puts it. */
  private policyOnly(selection: ContextSelection): Resolved {
    const selects = Object.keys(selection).filter((k) => k !== "skills" || selection.skills.length > 0);
    if (selects.length > 0) {
      return {
        message: `the context selects ${selects.join(", ")}, which needs a configuration directory`,
        hint: "add `config_dir:` to the test file or pass --config-dir",
      };
    }
    const pinned = [
      ...new Set(
        this.policy?.compiled.policy.toolPins.flatMap((p) =>
          p.serverId === undefined ? [] : [p.serverId],
        ) ?? [],
      ),
    ];
    const gates = new Map<string, ToolGate>();
    for (const name of this.catalog.keys()) {
      // wrap binds pins to the one server they name, whatever it is called.
      const serverId = pinned.length === 1 ? pinned[0]! : name;
      gates.set(
        name,
        this.policy === null ? allowAllGate() : createPolicyGate(this.policy.compiled, { serverId }),
      );
    }
    return { gates, configured: [...this.catalog.keys()] };
  }

  /** As serve builds a client's session: the selection's configuration, its enabled servers, each one's filter. */
  private fromConfig(base: ConfigDir, selection: ContextSelection): Resolved {
    const loaded = loadConfigDir(base.dir, selection);
    let config = loaded.config;
    const errors: Diagnostic[] = loaded.diagnostics.filter((d) => d.severity === "error");
    if (errors.length === 0 && selection.session !== undefined) {
      const session = loadSession(config, selection.session, { mustExist: true });
      errors.push(...session.diagnostics.filter((d) => d.severity === "error"));
      config = session.config;
    }
    if (errors.length > 0)
      return { message: `the context cannot be loaded: ${formatDiagnostic(errors[0]!)}` };
    const gates = new Map<string, ToolGate>();
    try {
      for (const name of enabledServers(config, selection).servers) {
        gates.set(name, serverFilter(config, selection, name, this.policy).gate);
      }
    } catch (error) {
      return {
        message: `the context cannot be resolved: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    return { gates, configured: config.mcp.servers.map((s) => s.name) };
  }
}
