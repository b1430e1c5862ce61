import type { ServerResponse } from "node:http";

/**
 * What `serve --http` answers on the OAuth discovery paths while it takes static bearer tokens only.
 * Clients that get a 401 look for OAuth metadata (RFC 9728, RFC 8414, OpenID discovery) and try dynamic
 * client registration; a bare 404 there ends in "Dynamic Client Registration rejected (HTTP 404)" with no
 * word of what to do. The answer stays a 404 (there is no OAuth here: a client must not start an OAuth
 * flow against this server), but its body says how to authenticate instead.
 */
const DISCOVERY = [
  /^\/\.well-known\/oauth-protected-resource(\/.*)?$/,
  /^\/\.well-known\/oauth-authorization-server(\/.*)?$/,
  /^\/\.well-known\/openid-configuration(\/.*)?$/,
  /^\/register$/,
];

export const BEARER_HOW =
  'send the header "Authorization: Bearer <token>" with a token from the --tokens file of toolgate serve ' +
  '(Claude Code: claude mcp add --transport http NAME URL --header "Authorization: Bearer <token>")';

export function isOAuthDiscoveryPath(path: string): boolean {
  return DISCOVERY.some((pattern) => pattern.test(path));
}

/**
 * `resource`: with OAuth configured, the resource whose metadata names the authorization servers (this
 * gateway is none of them); `null`: static tokens only.
 */
export function answerOAuthDiscovery(res: ServerResponse, resource: string | null): void {
  const body = JSON.stringify({
    error: "invalid_request",
    error_description:
      resource === null
        ? `this toolgate takes static bearer tokens, not OAuth: ${BEARER_HOW}`
        : `this toolgate is an OAuth resource server, not an authorization server: its authorization servers are named in the protected resource metadata of ${resource}`,
  });
  res.writeHead(404, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}
