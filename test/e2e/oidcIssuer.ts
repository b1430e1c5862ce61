// A real OpenID provider (oidc-provider 9, certified) in this process as the issuer of access tokens for
// the OAuth tests, on 127.0.0.1. Its signing key is made here, so a test can also sign tokens the provider
// would not issue (expired, for another issuer) with the very key it publishes.
import { createHash, randomBytes } from "node:crypto";
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
  /**
   * An access token by the authorization code flow with PKCE, as a browser would get it: the provider's
   * own login and consent pages, driven here (the public client `web`, the user `user`).
   */
  userToken(user: string, resource: string, scope: string): Promise<string>;
  /** The ID token of the same flow (scope `openid`): a JWT of this issuer and key, but no access token. */
  idToken(user: string, resource: string): Promise<string>;
  /**
   * A JWT introspection answer (RFC 9701, `typ: token-introspection+jwt`) about an opaque token of `client`:
   * another JWT this issuer signs with the same key, for that client.
   */
  introspectionJwt(client: string): Promise<string>;
  stop(): Promise<void>;
}

export const CLIENTS: Record<string, string> = {
  ci: "ci-secret-0123456789abcdef",
  stranger: "stranger-secret-0123456789ab",
};

const REDIRECT = "http://127.0.0.1:9/callback";

/**
 * `dashboardRedirect`: also register the dashboard's public client `dashboard`, sent back there.
 * `clients`: more clients; `configure`: called with the provider before it listens (a grant of the test's).
 */
export async function startIssuer(
  options: {
    dashboardRedirect?: string;
    clients?: Record<string, unknown>[];
    configure?: (provider: Provider, url: string) => void;
  } = {},
): Promise<Issuer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const key = { ...(await exportJWK(privateKey)), kid: "test-key-1", alg: "RS256", use: "sig" } as JWK & {
    kid: string;
  };
  const provider = new Provider(url, {
    jwks: { keys: [key as never] },
    clients: [
      ...Object.entries(CLIENTS).map(([client_id, client_secret]) => ({
        client_id,
        client_secret,
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
        scope: "tools:call tools:read",
      })),
      {
        client_id: "web",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code"],
        response_types: ["code"],
        redirect_uris: [REDIRECT],
        scope: "openid tools:call tools:read",
      },
      ...(options.dashboardRedirect === undefined
        ? []
        : [
            {
              client_id: "dashboard",
              token_endpoint_auth_method: "none",
              grant_types: ["authorization_code"],
              response_types: ["code"],
              redirect_uris: [options.dashboardRedirect],
              scope: "tools:call",
            },
          ]),
      ...(options.clients ?? []),
    ],
    scopes: ["openid", "tools:call", "tools:read"],
    pkce: { required: () => true },
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      jwtIntrospection: { enabled: true },
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
  options.configure?.(provider, url);
  // The provider answers its own failures with a generic page: say the real error where the test shows it.
  provider.on("server_error", (_ctx: unknown, error: Error) =>
    process.stderr.write(`oidc-provider: ${error.stack ?? error.message}\n`),
  );
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
    userToken: async (user, resource, scope) => (await authorizationCode(url, user, resource, scope)).access,
    async idToken(user, resource) {
      const { id } = await authorizationCode(url, user, resource, "openid tools:call");
      if (id === undefined) throw new Error("no id_token");
      return id;
    },
    async introspectionJwt(client) {
      const basic = `Basic ${Buffer.from(`${client}:${CLIENTS[client]}`).toString("base64")}`;
      // Without a resource the client credentials token is opaque: only those can be introspected.
      const opaque = (await (
        await fetch(`${url}/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
          body: new URLSearchParams({ grant_type: "client_credentials" }),
        })
      ).json()) as { access_token: string };
      const answer = await fetch(`${url}/token/introspection`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/token-introspection+jwt",
          authorization: basic,
        },
        body: new URLSearchParams({ token: opaque.access_token }),
      });
      const text = await answer.text();
      if (!answer.headers.get("content-type")?.startsWith("application/token-introspection+jwt"))
        throw new Error(`no JWT introspection answer: ${text.slice(0, 200)}`);
      return text;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The browser's part of the authorization code flow, with cookies kept by hand; bounded to 10 hops. */
async function authorizationCode(
  issuer: string,
  user: string,
  resource: string,
  scope: string,
): Promise<{ access: string; id?: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const cookies = new Map<string, string>();
  const go = async (target: string, init: RequestInit = {}): Promise<Response> => {
    const answer = await fetch(new URL(target, issuer), {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return answer;
  };
  const query = new URLSearchParams({
    client_id: "web",
    response_type: "code",
    redirect_uri: REDIRECT,
    scope,
    resource,
    state: "s1",
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  let answer = await go(`/auth?${query}`);
  for (let hop = 0; hop < 10; hop++) {
    const location = answer.headers.get("location");
    if (location?.startsWith(REDIRECT)) {
      const code = new URL(location).searchParams.get("code");
      if (code === null) throw new Error(`no code: ${location}`);
      const token = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: REDIRECT,
          client_id: "web",
          code_verifier: verifier,
          resource,
        }),
      });
      const json = (await token.json()) as {
        access_token?: string;
        id_token?: string;
        error_description?: string;
      };
      if (json.access_token === undefined) throw new Error(`no token: ${json.error_description}`);
      return { access: json.access_token, ...(json.id_token === undefined ? {} : { id: json.id_token }) };
    }
    if (location !== null) {
      answer = await go(location);
      continue;
    }
    // A page of the provider's own interactions: its login form, then its consent form.
    const html = await answer.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (action === undefined) throw new Error(`no form on the provider's page: ${html.slice(0, 200)}`);
    const fields = new URLSearchParams();
    for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(tag)?.[1];
      if (name !== undefined) fields.set(name, /value="([^"]*)"/.exec(tag)?.[1] ?? "");
    }
    if (fields.has("login")) fields.set("login", user);
    if (fields.has("password")) fields.set("password", "any");
    answer = await go(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: fields,
    });
  }
  throw new Error("the authorization code flow did not end in 10 steps");
}
