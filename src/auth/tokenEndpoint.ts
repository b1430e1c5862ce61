import { decodeJwt } from "jose";
import { readBoundedText, reasonOf } from "./boundedFetch.js";

/**
 * One request to an OAuth token endpoint as a confidential client (RFC 6749 §2.3.1, `client_secret_basic`):
 * a grant's parameters in, an access token and its lifetime out, or why not in words that name the
 * endpoint and its OAuth error code. Bounded in time and size. Nothing a token endpoint says is trusted to
 * be free of secrets: its `error_description` is shown only when it is short plain text with nothing
 * token-like in it, and neither the subject token, the client secret nor an issued token is ever in a
 * problem.
 */

export interface TokenClient {
  clientId: string;
  clientSecret: string;
}

export interface TokenRequestOptions {
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Now, in ms (tests). */
  now?: () => number;
}

export type TokenAnswer =
  | {
      ok: true;
      accessToken: string;
      /** Seconds the token is valid for (`expires_in`, else a JWT's `exp`); null when neither says. */
      expiresInS: number | null;
      /** RFC 8693's `issued_token_type`, when given. */
      issuedTokenType: string | null;
    }
  | { ok: false; problem: string; oauthError: string | null };

const MAX_ANSWER_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

export async function requestToken(
  endpoint: string,
  client: TokenClient,
  params: Record<string, string>,
  options: TokenRequestOptions = {},
): Promise<TokenAnswer> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const basic = Buffer.from(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`).toString(
    "base64",
  );
  let text: string;
  let status: number;
  try {
    const answer = await (options.fetch ?? fetch)(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
        authorization: `Basic ${basic}`,
      },
      body: new URLSearchParams(params),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
    status = answer.status;
    text = await readBoundedText(answer, endpoint, { maxBytes: MAX_ANSWER_BYTES, timeoutMs });
  } catch (error) {
    return {
      ok: false,
      problem: `the token endpoint ${endpoint} could not be reached: ${reasonOf(error, timeoutMs)}`,
      oauthError: null,
    };
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: said below as an answer without a token.
  }
  const secrets = [client.clientSecret, params.subject_token ?? ""];
  if (status !== 200 || typeof body.access_token !== "string" || body.access_token === "") {
    const code = typeof body.error === "string" ? safeText(body.error, secrets, 64) : null;
    const description =
      typeof body.error_description === "string" ? safeText(body.error_description, secrets, 200) : null;
    const said =
      code === null
        ? `answered HTTP ${status} without an access token`
        : `refused with ${code} (HTTP ${status})${description === null ? "" : `: ${description}`}`;
    return { ok: false, problem: `the token endpoint ${endpoint} ${said}`, oauthError: code };
  }
  const type = typeof body.token_type === "string" ? body.token_type : "Bearer";
  if (type.toLowerCase() !== "bearer" && type !== "N_A") {
    return {
      ok: false,
      problem: `the token endpoint ${endpoint} issued a token of type ${safeText(type, secrets, 32) ?? "(unreadable)"}; toolgate sends Bearer tokens only`,
      oauthError: null,
    };
  }
  return {
    ok: true,
    accessToken: body.access_token,
    expiresInS: lifetimeOf(body, options.now ?? Date.now),
    issuedTokenType: typeof body.issued_token_type === "string" ? body.issued_token_type : null,
  };
}

/** `expires_in` when the endpoint gives it (RFC 6749 §5.1 recommends it), else the token's own `exp`. */
function lifetimeOf(body: Record<string, unknown>, now: () => number): number | null {
  const given = typeof body.expires_in === "string" ? Number(body.expires_in) : body.expires_in;
  if (typeof given === "number" && Number.isFinite(given) && given > 0) return given;
  try {
    const exp = decodeJwt(body.access_token as string).exp;
    if (typeof exp === "number") return Math.max(0, exp - now() / 1000);
  } catch {
    // An opaque token: its lifetime is not known.
  }
  return null;
}

/**
 * `text` when it is safe to show: printable ASCII, at most `max` characters, holding none of `secrets`
 * and no long unbroken run of token characters (a JWT, an opaque token); otherwise null.
 */
export function safeText(text: string, secrets: readonly string[], max: number): string | null {
  if (text.length === 0 || text.length > max || /[^\u0020-\u007e]/.test(text)) return null;
  if (/[A-Za-z0-9_.~+/=-]{24,}/.test(text)) return null;
  if (secrets.some((s) => s.length >= 4 && text.includes(s))) return null;
  return text;
}

/** `application/x-www-form-urlencoded` of one value, as RFC 6749 §2.3.1 wants for Basic credentials. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
