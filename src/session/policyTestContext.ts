import { loadConfigDir, loadSession } from "../config/configDir.js";
import type { PolicyCatalog } from "../config/catalogFile.js";
import type { PolicyTestCase, TestContext } from "../config/policyTestFile.js";
import type { PrincipalEntry, TokenEntry } from "../config/tokensFile.js";
import type { ConfigDir, ContextSelection } from "../engine/model/configDir.js";
import { formatDiagnostic, type Diagnostic } from "../engine/model/diagnostics.js";
import type { ToolGate } from "../engine/model/gate.js";
import { closestName } from "../engine/text/didYouMean.js";
import { enabledServers } from "../engine/policy/enabledServers.js";
import type { ActivePolicy } from "../engine/policy/policyLayer.js";
import { allowAllGate, createPolicyGate } from "../engine/policy/policyGate.js";
import { serverFilter } from "../engine/policy/serverFilter.js";
import type { CaseGates } from "./policyCase.js";

/**
 * The policy alone in front of each catalog server, as `wrap --policy` puts it: pins bound to the one
 * server they name whatever it is called (else to the catalog's name for it); no policy: allow all.
 */
export function policyGates(policy: ActivePolicy | null, catalog: PolicyCatalog): CaseGates {
  const pins = policy?.compiled.policy.toolPins ?? [];
  const pinned = [...new Set(pins.flatMap((p) => (p.serverId === undefined ? [] : [p.serverId])))];
  const gates = new Map<string, ToolGate>();
  for (const name of catalog.keys()) {
    const serverId = pinned.length === 1 ? pinned[0]! : name;
    gates.set(name, policy === null ? allowAllGate() : createPolicyGate(policy.compiled, { serverId }));
  }
  return { gates, configured: [...catalog.keys()] };
}

export type Tokens = { entries: TokenEntry[]; principals: PrincipalEntry[] };

type Resolved = CaseGates | { message: string; hint?: string };

/** A case's context → the gates of what it enables; one configuration load per distinct context. */
export class ContextResolver {
  private readonly cache = new Map<string, Resolved>();

  constructor(
    private readonly base: ConfigDir | null,
    private readonly policy: ActivePolicy | null,
    private readonly catalog: PolicyCatalog,
    private readonly tokens: Tokens | null,
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
    return policyGates(this.policy, this.catalog);
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

/**
 * wrap's self-test: its one server under the gate wrap decides with. wrap decides in the one context its
 * flags give, so a case that names a context cannot be decided as written.
 */
export class FixedGateResolver {
  constructor(
    private readonly server: string,
    private readonly gate: ToolGate,
  ) {}

  resolve(c: PolicyTestCase): Resolved {
    const named = Object.entries(c.context).filter(
      ([k, v]) => v !== undefined && !(k === "skills" && (v as readonly string[]).length === 0),
    );
    if (named.length > 0) {
      return {
        message: `the case names a context (${named.map(([k]) => k).join(", ")}), and wrap decides in the one its flags give`,
        hint: "leave out context: in wrap's self-test (--role, --agent, … on wrap choose its context)",
      };
    }
    return { gates: new Map([[this.server, this.gate]]), configured: [this.server] };
  }
}
