// The real OpenID provider of the OAuth tests (oidcIssuer.ts), with an RFC 8693 token exchange registered
// at its token endpoint (oidc-provider has none of its own: registerGrantType). The exchange is what a real
// identity provider does: toolgate's confidential client `toolgate` (authenticated by the provider) sends a
// user's access token for the gateway as subject_token and gets a token of this issuer for the audience it
// names, with the user as subject, signed with the provider's key. A user the test revokes is refused with
// invalid_grant; each audience has its own lifetime (a short one to see a token expire).
import { randomUUID } from "node:crypto";
import { createRemoteJWKSet, importJWK, jwtVerify, SignJWT, type JWTPayload } from "jose";
import { errors, type GrantContext } from "oidc-provider";
import { startIssuer, type Issuer } from "./oidcIssuer.js";

export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";
export const GATEWAY_CLIENT = { id: "toolgate", secret: "toolgate-exchange-secret-5f1c9a7e22" };

export interface ExchangeIssuer extends Issuer {
  /** Every exchange granted: whose token, for which audience. */
  granted: { sub: string; audience: string }[];
  /** Every exchange refused, with the OAuth error. */
  refused: { sub: string | undefined; error: string }[];
  /** From now on the user's tokens are not exchanged (as after an administrator disabled them). */
  revoke(sub: string): void;
  /** The audience a subject token must be for: the gateway's (known once serve listens). */
  gatewayAudience: { value: string };
}

/** `audiences`: the audiences tokens may be exchanged for, each with the lifetime (s) of its tokens. */
export async function startExchangeIssuer(audiences: Record<string, number>): Promise<ExchangeIssuer> {
  const granted: ExchangeIssuer["granted"] = [];
  const refused: ExchangeIssuer["refused"] = [];
  const revoked = new Set<string>();
  const gatewayAudience = { value: "" };
  const issuer = await startIssuer({
    clients: [
      {
        client_id: GATEWAY_CLIENT.id,
        client_secret: GATEWAY_CLIENT.secret,
        grant_types: [TOKEN_EXCHANGE],
        redirect_uris: [],
        response_types: [],
      },
    ],
    configure: (provider, url) => {
      const keys = createRemoteJWKSet(new URL(`${url}/jwks`));
      provider.registerGrantType(
        TOKEN_EXCHANGE,
        async (ctx: GrantContext) => {
          const { params, client } = ctx.oidc;
          const refuse = (sub: string | undefined, error: Error): never => {
            refused.push({ sub, error: error.message });
            throw error;
          };
          if (client.clientId !== GATEWAY_CLIENT.id)
            refuse(undefined, new errors.UnauthorizedClient("this client may not exchange tokens"));
          if (params.subject_token_type !== ACCESS_TOKEN || params.subject_token === undefined)
            refuse(undefined, new errors.InvalidRequest("subject_token must be an access token"));
          let subject: JWTPayload;
          try {
            // The user's token, for the gateway: the one thing the gateway may exchange.
            ({ payload: subject } = await jwtVerify(params.subject_token!, keys, {
              issuer: url,
              audience: gatewayAudience.value,
            }));
          } catch {
            return refuse(undefined, new errors.InvalidGrant("the subject token is not valid"));
          }
          const sub = subject.sub!;
          if (revoked.has(sub)) refuse(sub, new errors.InvalidGrant("the user's access was revoked"));
          const audience = params.audience ?? "";
          const lifetime = audiences[audience];
          if (lifetime === undefined) refuse(sub, new errors.InvalidTarget("unknown audience"));
          const key = await importJWK(issuer.key, "RS256");
          const now = Math.floor(Date.now() / 1000);
          const token = await new SignJWT({
            client_id: GATEWAY_CLIENT.id,
            scope: params.scope ?? "",
            act: { sub: GATEWAY_CLIENT.id },
          })
            .setProtectedHeader({ alg: "RS256", kid: issuer.key.kid, typ: "at+jwt" })
            .setIssuer(url)
            .setSubject(sub)
            .setAudience(audience)
            .setIssuedAt(now)
            .setExpirationTime(now + lifetime!)
            .setJti(randomUUID())
            .sign(key);
          granted.push({ sub, audience });
          ctx.body = {
            access_token: token,
            issued_token_type: ACCESS_TOKEN,
            token_type: "Bearer",
            expires_in: lifetime,
          };
        },
        ["subject_token", "subject_token_type", "requested_token_type", "audience", "scope"],
      );
    },
  });
  return {
    ...issuer,
    granted,
    refused,
    revoke: (sub) => revoked.add(sub),
    gatewayAudience,
  };
}
