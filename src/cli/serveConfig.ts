import { brokenContext } from "../serve/gateway.js";
import { localPrincipal } from "../engine/model/principal.js";
import { loadContext, type LoadedContext } from "./contextLoader.js";
import { logDiagnostic } from "./log/stderrLog.js";
import { EXIT_BAD_INPUT, fail, type ServeFlags } from "./serveFlags.js";
import { loadServePrincipals, type ServePrincipals } from "./servePrincipals.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import { diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";

export interface ServeConfig {
  loaded: LoadedContext;
  admitted: ServePrincipals;
}

/**
 * serve's configuration read and checked: the directory, the policy, the tokens file, and every context a
 * client may get, built once to prove it works. Every problem is printed (file, line, field); the exit
 * status when anything is wrong. At start nothing is started then; at a reload the configuration in force
 * stays.
 */
export function readServeConfig(flags: ServeFlags, http: boolean): ServeConfig | number {
  const loaded = loadContext(flags);
  if (loaded === null) return EXIT_BAD_INPUT;
  // The flags win over config.yaml's oauth: section, as --policy wins over policy:.
  const fromConfig = http ? loaded.config.global.oauth : null;
  if (flags.oauthIssuer.length === 0 && fromConfig !== null) flags.oauthIssuer = fromConfig.issuers;
  if (flags.oauthAudience === undefined && fromConfig?.audience != null)
    flags.oauthAudience = fromConfig.audience;
  if (flags.oauthScope.length === 0 && fromConfig !== null) flags.oauthScope = fromConfig.scopes;
  const admitted = loadServePrincipals(flags, loaded, http);
  if (typeof admitted === "number") return admitted;
  const { clients, oauth: oauthPrincipals, operators } = admitted;
  const { policy } = loaded;

  if (flags.oauthIssuer.length > 0 && oauthPrincipals.length === 0) {
    return fail(
      `--oauth-issuer needs its principals mapped: ${flags.tokens === undefined ? "a --tokens file with" : `the tokens file ${flags.tokens} needs`} claims: entries that give each kind of access token its context, e.g.\n  - name: ci\n    claims: { client_id: ci-pipeline }\n    role: ci`,
    );
  }
  if (oauthPrincipals.length > 0 && flags.oauthIssuer.length === 0) {
    return fail(
      "the tokens file has claims: entries (OAuth principals): give the issuer of their tokens with --oauth-issuer URL",
    );
  }
  for (const issuer of flags.oauthIssuer) {
    if (!/^https?:\/\//.test(issuer) || !URL.canParse(issuer))
      return fail(`--oauth-issuer must be the issuer's URL, not '${issuer}'`, "E_USAGE");
  }
  if (
    flags.dashboard === true &&
    operators.length === 0 &&
    !oauthPrincipals.some((p) => p.rights.dashboard !== null)
  ) {
    return fail(
      "--dashboard admits operators, never an MCP client's token, and no entry may use it: grant dashboard access in the --tokens file, e.g.\n" +
        "  - name: alice\n    token_sha256: <hex SHA-256 of her token>\n    use: [dashboard]\n    dashboard: approver   # or viewer\n" +
        "(see docs/dashboard.md, 'Who may sign in')",
    );
  }
  const secretsMissing = missingClientSecrets(loaded.config.mcp.servers, process.env);
  if (secretsMissing.length > 0) {
    for (const d of secretsMissing) logDiagnostic(d);
    return fail("remote servers' auth needs client secrets that are not set (see above)");
  }
  // Every context must work before anything starts: configuration mistakes are start-up errors.
  const probe = localPrincipal("probe");
  const broken = brokenContext(
    [...clients, ...oauthPrincipals.filter((p) => p.rights.mcp).map((p) => p.context(probe))],
    policy,
  );
  if (broken !== null) {
    for (const d of broken.diagnostics) logDiagnostic(d);
    return fail(`cannot serve ${broken.client} (see above)`, "E_START_REFUSED", { principal: broken.client });
  }
  return { loaded, admitted };
}

/**
 * Every remote server whose token `auth` names an environment variable for toolgate's client secret that
 * is not set: refused at start (and at a reload), not at the first user's request.
 */
export function missingClientSecrets(
  servers: readonly McpServerConfig[],
  env: NodeJS.ProcessEnv,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const server of servers) {
    if (server.transport === "stdio" || server.auth === undefined) continue;
    const name = server.auth.clientSecretEnv;
    if (env[name] !== undefined && env[name] !== "") continue;
    out.push(
      diagnosticAt(
        "error",
        "E_MCP_SERVER",
        server.auth.clientSecretEnvAt,
        `the environment variable ${name} ("auth.client_secret_env" of server '${server.name}') is not set`,
        `set ${name} to toolgate's client secret at the identity provider before starting serve`,
      ),
    );
  }
  return out;
}
