import { AccessTokens } from "../auth/accessTokens.js";
import type { SubjectTokens } from "../auth/subjectTokens.js";
import {
  authenticate,
  challenge,
  metadataUrl,
  protectedResourceMetadata,
  type AuthOutcome,
  type OAuthSettings,
  type PrincipalRule,
} from "../auth/resourceServer.js";
import type { ClaimMatch } from "../engine/model/claims.js";
import { oauthPrincipal, type Principal, type PrincipalRights } from "../engine/model/principal.js";
import type { OAuthEndpoint } from "../transports/httpAuth.js";

/** An OAuth principal entry of the tokens file: its claims, what it may do, and (for /mcp) its context. */
export interface OAuthPrincipal<C> {
  label: string;
  claims: ClaimMatch;
  rights: PrincipalRights;
  /** The context its tokens get at /mcp, made for the principal the token is (issuer and subject). */
  context: (principal: Principal) => C;
}

/** Who a request to /mcp is, and the context it gets. */
export interface McpIdentity<C> {
  principal: Principal;
  context: C;
}

export interface OAuthIdentity<C> extends McpIdentity<C> {
  rights: PrincipalRights;
}

/** The OAuth side of `serve --http --oauth-issuer …`: /mcp's resource server, and the dashboard's sign-in check. */
export interface OAuthDoors<C> {
  mcp: OAuthEndpoint<McpIdentity<C>>;
  /** An access token as the dashboard checks it: its issuer, audience and scopes, then a `use: [dashboard]` entry. */
  dashboard(token: string): Promise<AuthOutcome<OAuthIdentity<C>>>;
  /** A reload: the tokens file's claims: entries from the next token on (issuers and audience stay). */
  replaceEntries(entries: readonly OAuthPrincipal<C>[]): void;
}

/**
 * The resource server of `serve --http --oauth-issuer …`: access tokens from those issuers, for this
 * resource (`--oauth-audience`, else the public URL of /mcp), with every `--oauth-scope`, mapped to the
 * first entry of the door's (use: mcp at /mcp, use: dashboard at the dashboard) whose claims match. The
 * principal is the entry with the token's issuer **and** subject: the same subject at two issuers is two
 * principals, and two subjects under one entry are two principals (sessions, limits, servers, states).
 */
export function oauthDoors<C>(
  settings: {
    issuers: readonly string[];
    audience: () => string;
    scopes: readonly string[];
    /** Where each principal's newest token at /mcp is kept for the token exchange (mcp.json `auth`). */
    subjectTokens?: SubjectTokens;
  },
  entries: readonly OAuthPrincipal<C>[],
): OAuthDoors<C> {
  const oauth: OAuthSettings = settings;
  const tokens = new AccessTokens({ issuers: settings.issuers, audience: settings.audience });
  let clients = entries.filter((e) => e.rights.mcp);
  let operators = entries.filter((e) => e.rights.dashboard !== null);
  // The same object for the same principal: its context is made once.
  const identities = new Map<string, OAuthIdentity<C>>();
  const identityOf = (entry: OAuthPrincipal<C>, issuer: string, subject: string): OAuthIdentity<C> => {
    const principal = oauthPrincipal(entry.label, issuer, subject);
    let found = identities.get(principal.key);
    if (found === undefined) {
      found = { principal, rights: entry.rights, context: entry.context(principal) };
      // Bounded: a principal seen again after a clear is simply made again.
      if (identities.size >= 10_000) identities.clear();
      identities.set(principal.key, found);
    }
    return found;
  };
  const rules = (list: readonly OAuthPrincipal<C>[]): readonly PrincipalRule[] => list;
  return {
    mcp: {
      metadata: () => protectedResourceMetadata(oauth),
      metadataPaths: () => {
        const path = new URL(metadataUrl(settings.audience())).pathname;
        return [path, "/.well-known/oauth-protected-resource"];
      },
      challenge: (problem) => challenge(oauth, problem),
      authenticate: async (token) => {
        const outcome = await authenticate(token, oauth, tokens, clients, identityOf, rules(operators));
        // Before the request is served: a server it reaches with this user's token gets the newest one.
        if (outcome.ok)
          settings.subjectTokens?.remember(outcome.identity.principal.key, token, outcome.expiresAt);
        return outcome;
      },
    },
    dashboard: (token) => authenticate(token, oauth, tokens, operators, identityOf, rules(clients)),
    replaceEntries: (next) => {
      clients = next.filter((e) => e.rights.mcp);
      operators = next.filter((e) => e.rights.dashboard !== null);
      // Contexts were made from the old entries: made again from the new ones at each principal's next token.
      identities.clear();
    },
  };
}
