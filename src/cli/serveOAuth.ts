import { createHash } from "node:crypto";
import { AccessTokens } from "../auth/accessTokens.js";
import {
  authenticate,
  challenge,
  metadataUrl,
  protectedResourceMetadata,
  type OAuthSettings,
} from "../auth/resourceServer.js";
import type { ClaimMatch } from "../engine/model/claims.js";
import type { OAuthEndpoint } from "../transports/httpAuth.js";

/** An OAuth principal of the tokens file with the context its tokens get. */
export interface OAuthPrincipal<C> {
  label: string;
  claims: ClaimMatch;
  context: C;
}

export interface OAuthIdentity<C> {
  /** Stands for the principal and subject where a static token's digest would: limits, sessions, states. */
  digest: Buffer;
  label: string;
  context: C;
}

/**
 * The resource server of `serve --http --oauth-issuer …`: access tokens from those issuers, for this
 * resource (`--oauth-audience`, else the public URL of /mcp), with every `--oauth-scope`, mapped to the
 * first principal whose claims match. Each principal and subject is one identity (the same object each
 * time), so its sessions, limits and request states are its own.
 */
export function oauthEndpoint<C extends { client: string; principal?: string }>(
  settings: { issuers: readonly string[]; audience: () => string; scopes: readonly string[] },
  principals: readonly OAuthPrincipal<C>[],
): OAuthEndpoint<OAuthIdentity<C>> {
  const oauth: OAuthSettings = settings;
  const tokens = new AccessTokens({ issuers: settings.issuers, audience: settings.audience });
  const identities = new Map<string, OAuthIdentity<C>>();
  const identityOf = (entry: OAuthPrincipal<C>, subject: string): OAuthIdentity<C> => {
    const key = JSON.stringify([entry.label, subject]);
    let found = identities.get(key);
    if (found === undefined) {
      found = {
        digest: createHash("sha256").update(`oauth\u0000${key}`).digest(),
        label: subject === "" ? entry.label : `${entry.label} (${subject})`,
        // One principal entry can cover many subjects: the audit log names both (client, principal).
        context: {
          ...entry.context,
          principal: subject === "" ? entry.label : `${entry.label} (${subject})`,
        },
      };
      identities.set(key, found);
    }
    return found;
  };
  return {
    metadata: () => protectedResourceMetadata(oauth),
    metadataPaths: () => {
      const path = new URL(metadataUrl(settings.audience())).pathname;
      return [path, "/.well-known/oauth-protected-resource"];
    },
    challenge: (problem) => challenge(oauth, problem),
    authenticate: (token) => authenticate(token, oauth, tokens, principals, identityOf),
  };
}
