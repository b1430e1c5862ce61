// A real OpenID provider (oidc-provider 9, certified) in this process as the issuer of access tokens for
// the OAuth tests, on 127.0.0.1. Its signing key is made here, so a test can also sign tokens the provider
// would not issue (expired, for another issuer) with the very key it publishes.
import { createServer, type Server } from "node:http";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider from "oidc-provider";
import { freePort } from "./replicaHelpers.js";

export interface Issuer {
  url: string;
  /** The provider's signing key (private JWK with its kid), to sign tokens by hand. */
  key: JWK & { kid: string };
  /** An access token from the token endpoint: client credentials, for `resource`, with `scope`. */
  token(client: string, resource: string, scope?: string): Promise<string>;
  stop(): Promise<void>;
}

export const CLIENTS: Record<string, string> = {
  ci: "ci-secret-0123456789abcdef",
  stranger: "stranger-secret-0123456789ab",
};

export async function startIssuer(): Promise<Issuer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const key = { ...(await exportJWK(privateKey)), kid: "test-key-1", alg: "RS256", use: "sig" } as JWK & {
    kid: string;
  };
  const provider = new Provider(url, {
    jwks: { keys: [key as never] },
    clients: Object.entries(CLIENTS).map(([client_id, client_secret]) => ({
      client_id,
      client_secret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      scope: "tools:call tools:read",
    })),
    scopes: ["tools:call", "tools:read"],
    features: {
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as never,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: "tools:call tools:read",
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
  });
  provider.proxy = false;
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url,
    key,
    async token(client, resource, scope) {
      const body = new URLSearchParams({
        grant_type: "client_credentials",
        resource,
        ...(scope === undefined ? {} : { scope }),
      });
      const answer = await fetch(`${url}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${client}:${CLIENTS[client]}`).toString("base64")}`,
        },
        body,
      });
      const json = (await answer.json()) as {
        access_token?: string;
        error?: string;
        error_description?: string;
      };
      if (json.access_token === undefined)
        throw new Error(`no token: ${json.error}: ${json.error_description}`);
      return json.access_token;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
