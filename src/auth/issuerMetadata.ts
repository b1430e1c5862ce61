/**
 * An authorization server's metadata (OpenID discovery, else RFC 8414), fetched from its issuer URL. The
 * metadata must name the issuer it was fetched for (RFC 8414 §3.3): a document for another issuer is
 * ignored, never trusted.
 */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
}

export async function fetchIssuerMetadata(
  issuer: string,
  timeoutMs = 5000,
  doFetch: typeof fetch = fetch,
): Promise<IssuerMetadata> {
  const base = issuer.replace(/\/$/, "");
  for (const path of ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]) {
    const answer = await doFetch(base + path, { signal: AbortSignal.timeout(timeoutMs) }).catch(() => null);
    if (answer === null || !answer.ok) continue;
    const metadata = (await answer.json().catch(() => null)) as Record<string, unknown> | null;
    if (metadata?.issuer !== issuer || typeof metadata.jwks_uri !== "string") continue;
    const text = (key: string): string | undefined =>
      typeof metadata[key] === "string" ? (metadata[key] as string) : undefined;
    const authorization = text("authorization_endpoint");
    const token = text("token_endpoint");
    return {
      issuer,
      jwks_uri: metadata.jwks_uri,
      ...(authorization === undefined ? {} : { authorization_endpoint: authorization }),
      ...(token === undefined ? {} : { token_endpoint: token }),
    };
  }
  throw new Error(
    `no metadata naming issuer ${issuer} with a jwks_uri at ${base}/.well-known/openid-configuration or …/oauth-authorization-server`,
  );
}
