import { CachedToken, type IssuedToken } from "../auth/cachedToken.js";
import { CachedIssuerMetadata } from "../auth/issuerMetadata.js";
import type { SubjectTokens } from "../auth/subjectTokens.js";
import { requestToken, type TokenAnswer } from "../auth/tokenEndpoint.js";
import type {
  ClientCredentialsAuth,
  McpServerConfig,
  TokenExchangeAuth,
} from "../engine/model/mcpServers.js";
import type { Principal } from "../engine/model/principal.js";
import { UpstreamAuthError, type UpstreamAuth } from "./upstreamAuth.js";

/**
 * The tokens toolgate reaches remote servers with (mcp.json `auth`), for every connection of a process:
 *
 * - `token_exchange` (RFC 8693): per principal and server, the principal's own access token (SubjectTokens:
 *   the newest it brought) is the `subject_token`, exchanged at its issuer's token endpoint (from its
 *   metadata, unless `token_endpoint` is given) for a token whose audience is the server. Only an OAuth
 *   principal has a token to exchange: any other is refused with E_UPSTREAM_AUTH_PRINCIPAL.
 * - `client_credentials`: the gateway's own token, one per server, rotated before it expires.
 *
 * toolgate authenticates at the token endpoint as its own client (`client_id`, and the secret in the
 * environment variable `client_secret_env` names, read when needed). A token endpoint that refuses is
 * E_UPSTREAM_AUTH, naming the server and the endpoint's error code, never a token or the secret.
 */

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";
/** What an exchange may issue to be sent as a bearer access token (RFC 8693 §3). */
const ISSUED_TYPES = new Set([ACCESS_TOKEN, "urn:ietf:params:oauth:token-type:jwt"]);
const MAX_HELD = 10_000;

export interface CredentialOptions {
  /** The OAuth principals' access tokens (serve --http with --oauth-issuer); none elsewhere. */
  subjectTokens?: SubjectTokens;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  timeoutMs?: number;
  now?: () => number;
}

export class UpstreamCredentials {
  private readonly held = new Map<string, CachedToken>();
  private readonly issuers = new Map<string, CachedIssuerMetadata>();

  constructor(private readonly options: CredentialOptions = {}) {}

  /**
   * How `server` is reached for `principal` (null: no principal, as `info` or `pin` reach it); undefined
   * for a server without token auth (its `headers` alone).
   */
  forServer(server: McpServerConfig, principal: Principal | null): UpstreamAuth | undefined {
    if (server.transport === "stdio" || server.auth === undefined) return undefined;
    const auth = server.auth;
    if (auth.type === "client_credentials") {
      const key = JSON.stringify([
        "own",
        server.name,
        auth.tokenEndpoint,
        auth.clientId,
        auth.scope,
        auth.audience,
      ]);
      return this.source(key, "toolgate's own client", () => this.clientCredentials(server.name, auth));
    }
    if (principal === null || principal.kind !== "oauth" || principal.issuer === undefined) {
      return refusedPrincipal(server.name, principal);
    }
    const key = JSON.stringify([
      "exchange",
      principal.key,
      server.name,
      auth.tokenEndpoint,
      auth.audience,
      auth.scope,
      auth.clientId,
    ]);
    const issuer = principal.issuer;
    return this.source(key, principal.name, () => this.exchange(server.name, auth, principal, issuer));
  }

  /** Every token held now (for the log's scrubber). */
  secrets(): string[] {
    return [...this.held.values()].flatMap((t) => t.secrets());
  }

  private source(key: string, who: string, obtain: () => Promise<IssuedToken>): UpstreamAuth {
    let cached = this.held.get(key);
    if (cached === undefined) {
      if (this.held.size >= MAX_HELD) {
        for (const [k, t] of this.held) if (!t.fresh) this.held.delete(k);
      }
      cached = new CachedToken(obtain, this.options.now);
      this.held.set(key, cached);
    }
    const token = cached;
    return {
      who,
      token: () => token.get(),
      refused: (t) => token.drop(t),
      secrets: () => token.secrets(),
    };
  }

  private async exchange(
    server: string,
    auth: TokenExchangeAuth,
    principal: Principal,
    issuer: string,
  ): Promise<IssuedToken> {
    const subject = this.options.subjectTokens?.current(principal.key) ?? null;
    if (subject === null) {
      throw new UpstreamAuthError(
        "E_UPSTREAM_AUTH",
        `no current access token of ${principal.name} to exchange for MCP server '${server}'`,
        "its next request to toolgate with a valid token brings one",
      );
    }
    const endpoint = auth.tokenEndpoint ?? (await this.discovered(server, issuer));
    const answer = await requestToken(
      endpoint,
      { clientId: auth.clientId, clientSecret: this.secretOf(server, auth) },
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: subject,
        subject_token_type: ACCESS_TOKEN,
        requested_token_type: ACCESS_TOKEN,
        audience: auth.audience,
        ...(auth.scope === null ? {} : { scope: auth.scope }),
      },
      this.requestOptions(),
    );
    const issued = issuedOrRefused(
      answer,
      `the token exchange for ${principal.name} at MCP server '${server}'`,
    );
    if (answer.ok && answer.issuedTokenType !== null && !ISSUED_TYPES.has(answer.issuedTokenType)) {
      throw new UpstreamAuthError(
        "E_UPSTREAM_AUTH",
        `the token exchange for ${principal.name} at MCP server '${server}' issued a ${answer.issuedTokenType}, not an access token`,
        "configure the identity provider to issue access tokens for this exchange",
      );
    }
    return issued;
  }

  private async clientCredentials(server: string, auth: ClientCredentialsAuth): Promise<IssuedToken> {
    const answer = await requestToken(
      auth.tokenEndpoint,
      { clientId: auth.clientId, clientSecret: this.secretOf(server, auth) },
      {
        grant_type: "client_credentials",
        ...(auth.scope === null ? {} : { scope: auth.scope }),
        ...(auth.audience === null ? {} : { audience: auth.audience }),
      },
      this.requestOptions(),
    );
    return issuedOrRefused(answer, `toolgate's own token for MCP server '${server}'`);
  }

  private async discovered(server: string, issuer: string): Promise<string> {
    let metadata = this.issuers.get(issuer);
    if (metadata === undefined) {
      metadata = new CachedIssuerMetadata(issuer, {
        ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
        ...(this.options.now === undefined ? {} : { now: this.options.now }),
      });
      this.issuers.set(issuer, metadata);
    }
    let endpoint: string | undefined;
    try {
      endpoint = (await metadata.get()).token_endpoint;
    } catch (error) {
      throw new UpstreamAuthError(
        "E_UPSTREAM_AUTH",
        `the token endpoint of issuer ${issuer} (for MCP server '${server}') cannot be found: ${error instanceof Error ? error.message : String(error)}`,
        `give it as "auth.token_endpoint" of '${server}' in mcp.json`,
      );
    }
    if (endpoint === undefined) {
      throw new UpstreamAuthError(
        "E_UPSTREAM_AUTH",
        `issuer ${issuer} publishes no token_endpoint, so MCP server '${server}' cannot be reached with an exchanged token`,
        `give it as "auth.token_endpoint" of '${server}' in mcp.json`,
      );
    }
    return endpoint;
  }

  private secretOf(server: string, auth: TokenExchangeAuth | ClientCredentialsAuth): string {
    const secret = (this.options.env ?? process.env)[auth.clientSecretEnv];
    if (secret === undefined || secret === "") {
      const at = auth.clientSecretEnvAt;
      throw new UpstreamAuthError(
        "E_UPSTREAM_AUTH",
        `the environment variable ${auth.clientSecretEnv} is not set (client_secret_env of MCP server '${server}', ${at.file}:${at.line})`,
        `set ${auth.clientSecretEnv} to toolgate's client secret at the identity provider`,
      );
    }
    return secret;
  }

  private requestOptions() {
    return {
      ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
      ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
      ...(this.options.now === undefined ? {} : { now: this.options.now }),
    };
  }
}

function issuedOrRefused(answer: TokenAnswer, what: string): IssuedToken {
  if (answer.ok) return { token: answer.accessToken, lifetimeS: answer.expiresInS };
  throw new UpstreamAuthError(
    "E_UPSTREAM_AUTH",
    `${what} failed: ${answer.problem}`,
    hintFor(answer.oauthError),
  );
}

/** What to look at, by the token endpoint's OAuth error code (RFC 6749 §5.2, RFC 8693 §2.2.2). */
function hintFor(oauthError: string | null): string {
  switch (oauthError) {
    case null:
      return "check the token endpoint (auth.token_endpoint, or the one the issuer's metadata names) and that toolgate can reach it";
    case "invalid_grant":
      return "the user's token was not accepted for the exchange (revoked, expired, or not meant for toolgate's client): the user signs in again, or the identity provider's administrator restores their access";
    case "invalid_client":
      return "check client_id and the secret in the variable client_secret_env names";
    default:
      return "check that the identity provider allows toolgate's client this grant, this audience and this scope";
  }
}

/** A token_exchange server reached for a principal without a user token (a static token, a local client). */
function refusedPrincipal(server: string, principal: Principal | null): UpstreamAuth {
  const who = principal === null ? "a command without a principal" : principal.name;
  const refusal = (): UpstreamAuthError =>
    new UpstreamAuthError(
      "E_UPSTREAM_AUTH_PRINCIPAL",
      `MCP server '${server}' is reached with each user's own token (token_exchange), and ${who} has none: only an OAuth principal's access token can be exchanged`,
      "reach it through serve --http with an OAuth access token (--oauth-issuer), or give the server client_credentials auth",
    );
  return {
    who,
    token: () => Promise.reject(refusal()),
    refused: () => {},
    secrets: () => [],
  };
}

/** The process's own credentials, for commands that reach servers without a principal (info, pin, console). */
export const OWN_CREDENTIALS = new UpstreamCredentials();
