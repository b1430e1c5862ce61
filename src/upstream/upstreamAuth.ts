import type { FetchLike } from "@modelcontextprotocol/client";
import { ToolgateError, type UpstreamAuthCode } from "../engine/errors.js";
import { safeText } from "../auth/tokenEndpoint.js";

/**
 * A remote server reached with a token toolgate obtained (mcp.json `auth`: token_exchange, one per
 * principal; client_credentials, the gateway's own): every HTTP request to it carries the token as
 * `Authorization: Bearer`, obtained when needed and kept until shortly before it expires. A server that
 * answers 401 gets one more try with a fresh token; a second 401, or a 403, is `E_UPSTREAM_AUTH`, as is a
 * token that cannot be had. The server's answer to a refused token is never read (it may echo the token).
 */

export type { UpstreamAuthCode };

/** A server's credentials could not be had, or the server refused them: a refusal, never a retry loop. */
export class UpstreamAuthError extends ToolgateError {
  declare readonly code: UpstreamAuthCode;

  constructor(code: UpstreamAuthCode, message: string, hint?: string) {
    super(code, message, hint);
    this.name = "UpstreamAuthError";
  }
}

/** The UpstreamAuthError behind `error` (the SDK wraps what a transport's fetch throws), or null. */
export function upstreamAuthErrorIn(error: unknown): UpstreamAuthError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (current instanceof UpstreamAuthError) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return null;
}

/** How toolgate gets the token for one server (and, for token_exchange, one principal). */
export interface UpstreamAuth {
  /** Who the server sees (for messages): a principal's name, or the gateway's own client. */
  readonly who: string;
  /** The token to send now: held, or obtained. Throws {@link UpstreamAuthError}. */
  token(): Promise<string>;
  /** The server refused `token` (401): it is not sent again. */
  refused(token: string): void;
  /** The tokens held now: scrubbed from whatever toolgate writes or relays. */
  secrets(): string[];
}

/** A fetch for the SDK's HTTP transports that sends `auth`'s token with every request to `server`. */
export function authFetch(server: string, auth: UpstreamAuth, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const send = async (): Promise<{ response: Response; token: string }> => {
      const token = await auth.token();
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      return { response: await base(url, { ...init, headers }), token };
    };
    let { response, token } = await send();
    // A body the SDK sends is a string (JSON): it can be sent again as it is.
    const resendable = init?.body === undefined || init.body === null || typeof init.body === "string";
    let retried = false;
    if (response.status === 401 && resendable) {
      await response.body?.cancel().catch(() => undefined);
      auth.refused(token);
      ({ response, token } = await send());
      retried = true;
    }
    if (response.status !== 401 && response.status !== 403) return response;
    await response.body?.cancel().catch(() => undefined);
    if (response.status === 401) auth.refused(token);
    const error = challengeError(response.headers.get("www-authenticate"));
    throw new UpstreamAuthError(
      "E_UPSTREAM_AUTH",
      `MCP server '${server}' refused the token toolgate obtained for ${auth.who} (HTTP ${response.status}${error === null ? "" : ` ${error}`}${retried ? ", again with a fresh token" : ""})`,
      response.status === 403
        ? `the token's audience or scope does not give ${auth.who} this server: check "auth" of '${server}' in mcp.json and the user's rights at the identity provider`
        : `check that '${server}' accepts tokens of the identity provider for its "auth.audience"`,
    );
  };
}

/** The `error` of a Bearer challenge (`invalid_token`, `insufficient_scope`), when it is plain. */
function challengeError(header: string | null): string | null {
  const found = header === null ? undefined : /\berror="([^"]*)"/.exec(header)?.[1];
  return found === undefined ? null : safeText(found, [], 40);
}
