import { loadConfigDir, sortDiagnostics } from "../config/configDir.js";
import { logDiagnostic } from "./log/stderrLog.js";
import { loadTokensFile, MIN_TOKEN_LENGTH, tokenDigest } from "../config/tokensFile.js";
import { appendAll, formatDiagnostic, hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import {
  localPrincipal,
  tokenPrincipal,
  type Principal,
  type PrincipalRights,
} from "../engine/model/principal.js";
import type { LoadedContext } from "./contextLoader.js";
import type { OAuthPrincipal } from "./serveOAuth.js";
import { fail, type ClientContext, type ServeFlags } from "./serveFlags.js";

/** A static token of an operator: who it is and what it may do on the dashboard. */
export interface OperatorToken {
  digest: Buffer;
  principal: Principal;
  rights: PrincipalRights;
}

/**
 * Who `serve` admits, read once from its flags and the tokens file: the MCP clients (static tokens with
 * `use: mcp`, or the one stdio client), the OAuth principal entries, and the static tokens of people who
 * may sign in to the dashboard (`use: dashboard`). An entry is a client, an operator, or both, never by
 * default an operator: a client token does not open the dashboard. (`--token`/`--tokens` together and
 * context flags beside `--tokens` are refused by the caller before anything is loaded.)
 */
export interface ServePrincipals {
  clients: ClientContext[];
  oauth: OAuthPrincipal<ClientContext>[];
  operators: OperatorToken[];
}

export function loadServePrincipals(
  flags: ServeFlags,
  loaded: LoadedContext,
  http: boolean,
): ServePrincipals | number {
  const out: ServePrincipals = { clients: [], oauth: [], operators: [] };
  if (!http) {
    out.clients.push({
      client: "stdio",
      principal: localPrincipal("stdio"),
      selection: loaded.selection,
      config: loaded.config,
    });
    return out;
  }
  if (flags.tokens !== undefined) return fromTokensFile(flags.tokens, loaded, out);
  const token = flags.token ?? process.env["TOOLGATE_TOKEN"];
  if (token === undefined || token === "") {
    return fail(
      flags.oauthIssuer.length > 0
        ? "--oauth-issuer needs its principals mapped: a --tokens file with claims: entries that give each kind of token its context, e.g.\n" +
            "  - name: ci\n    claims: { client_id: ci-pipeline }\n    role: ci\n" +
            "(static tokens go in the same file: - name: bot\n    token_sha256: <hex SHA-256 of the token>)"
        : "serve --http needs a bearer token: --token T, $TOOLGATE_TOKEN, or --tokens FILE (a list of tokens and OAuth principals, each with its context)",
    );
  }
  if (token.length < MIN_TOKEN_LENGTH)
    return fail(`the bearer token must be at least ${MIN_TOKEN_LENGTH} characters long`);
  out.clients.push({
    client: "token",
    principal: tokenPrincipal("token"),
    selection: loaded.selection,
    config: loaded.config,
    digest: tokenDigest(token),
  });
  return out;
}

function fromTokensFile(file: string, loaded: LoadedContext, out: ServePrincipals): ServePrincipals | number {
  const { entries, principals, diagnostics } = loadTokensFile(file);
  const all: Diagnostic[] = [...diagnostics];
  const configOf = (selection: Parameters<typeof loadConfigDir>[1]) => {
    const dir = loadConfigDir(loaded.dir, selection);
    appendAll(
      all,
      dir.diagnostics.filter((d) => d.severity === "error"),
    );
    return dir.config;
  };
  for (const entry of principals) {
    const config = entry.rights.mcp ? configOf(entry.selection) : loaded.config;
    out.oauth.push({
      label: entry.label,
      claims: entry.claims,
      rights: entry.rights,
      context: (principal) => ({ client: entry.label, principal, selection: entry.selection, config }),
    });
  }
  for (const entry of entries) {
    const principal = tokenPrincipal(entry.label);
    if (entry.rights.dashboard !== null)
      out.operators.push({ digest: entry.digest, principal, rights: entry.rights });
    if (!entry.rights.mcp) continue;
    out.clients.push({
      client: entry.label,
      principal,
      selection: entry.selection,
      config: configOf(entry.selection),
      digest: entry.digest,
    });
  }
  const unique = [...new Map(sortDiagnostics(all).map((d) => [formatDiagnostic(d), d])).values()];
  for (const d of unique) logDiagnostic(d);
  if (hasErrors(unique))
    return fail(`the tokens file ${file} or the contexts it names have errors (see above)`);
  return out;
}
