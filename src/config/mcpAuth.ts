import type { ToolgateCode } from "../engine/model/codes.js";
import { appendAll, diagnosticAt, type Diagnostic } from "../engine/model/diagnostics.js";
import type { McpShare, UpstreamAuthConfig } from "../engine/model/mcpServers.js";
import type { SourceEntry, SourceMap, SourceNode, SourceRef } from "../engine/model/source.js";
import { describeKind, entryOf, unknownKeyWarnings } from "./sourceTree.js";

/**
 * The `auth` object of a remote server in mcp.json: how toolgate authenticates there.
 *
 * ```jsonc
 * "auth": { "type": "token_exchange", "audience": "https://jira-mcp.example.com",
 *           "client_id": "toolgate", "client_secret_env": "TOOLGATE_IDP_SECRET" }
 * "auth": { "type": "client_credentials", "token_endpoint": "https://idp/token",
 *           "client_id": "toolgate", "client_secret_env": "TOOLGATE_IDP_SECRET" }
 * "auth": { "type": "static", "headers": { "Authorization": "Bearer …" } }   // the same as "headers"
 * ```
 *
 * Pure. Every finding names the file, line and field; the server is left out on any error (fail closed:
 * a server whose credentials cannot be read is never reached without them).
 */

const TYPES = ["token_exchange", "client_credentials", "static"] as const;
const FIELDS: Record<(typeof TYPES)[number], readonly string[]> = {
  token_exchange: ["type", "token_endpoint", "audience", "scope", "client_id", "client_secret_env"],
  client_credentials: ["type", "token_endpoint", "client_id", "client_secret_env", "scope", "audience"],
  static: ["type", "headers"],
};
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ParsedAuth {
  /** `undefined`: static (its headers are merged into the server's `headers`). */
  auth?: UpstreamAuthConfig;
  /** Headers of a static `auth`. */
  headers: Record<string, string>;
}

function error(code: ToolgateCode, at: SourceRef, message: string, hint?: string): Diagnostic {
  return diagnosticAt("error", code, at, message, hint);
}

/** A loopback host may take plain HTTP (a provider beside the gateway); anything else must be HTTPS. */
function endpointProblem(url: string): string | null {
  if (!URL.canParse(url)) return "is not a URL";
  const parsed = new URL(url);
  if (parsed.protocol === "https:") return null;
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(parsed.hostname);
  if (parsed.protocol === "http:" && loopback) return null;
  return "must be an https:// URL (plain http:// only on localhost): toolgate sends its client secret there";
}

/**
 * Reads `auth` of remote server `server`. `share` is the entry's `share`: a user's token is never carried
 * on a connection every principal shares. `headers` are the entry's own, checked against the token auth
 * sets (an `Authorization` header would be replaced).
 */
export function parseAuth(
  entry: SourceEntry,
  server: string,
  share: { value: McpShare | undefined; at: SourceRef | null },
  headers: Record<string, string>,
  diagnostics: Diagnostic[],
): ParsedAuth | null {
  const node = entry.value;
  const field = (key: string): string => `"auth.${key}" of server '${server}'`;
  if (node.kind !== "map") {
    diagnostics.push(
      error(
        "E_FIELD_TYPE",
        node.at,
        `"auth" of server '${server}' must be an object, but this is ${describeKind(node)}`,
        `e.g. "auth": { "type": "token_exchange", "audience": "…", "client_id": "…", "client_secret_env": "…" }`,
      ),
    );
    return null;
  }
  const typeEntry = entryOf(node, "type");
  const type = typeEntry?.value.kind === "scalar" ? typeEntry.value.value : undefined;
  if (!(TYPES as readonly unknown[]).includes(type)) {
    diagnostics.push(
      error(
        "E_MCP_SERVER",
        typeEntry?.value.at ?? entry.keyAt,
        `${field("type")} must be "token_exchange", "client_credentials" or "static", but is ${typeEntry === undefined ? "missing" : describeKind(typeEntry.value)}`,
        "token_exchange: each user's own token for the server; client_credentials: the gateway's own rotating token; static: fixed headers",
      ),
    );
    return null;
  }
  const kind = type as (typeof TYPES)[number];
  appendAll(diagnostics, unknownKeyWarnings(node, FIELDS[kind], `"auth" (${kind}) of server '${server}'`));
  const before = diagnostics.length;
  const failed = (): boolean => diagnostics.slice(before).some((d) => d.severity === "error");

  if (kind === "static") {
    const h = entryOf(node, "headers");
    if (h === undefined) {
      diagnostics.push(error("E_MCP_SERVER", node.at, `static "auth" of server '${server}' needs "headers"`));
      return null;
    }
    const own = stringMap(h.value, server, diagnostics);
    for (const name of Object.keys(own)) {
      if (Object.keys(headers).some((n) => n.toLowerCase() === name.toLowerCase())) {
        diagnostics.push(
          error(
            "E_MCP_SERVER",
            h.value.at,
            `header '${name}' of server '${server}' is given both in "headers" and in "auth.headers"`,
            "give each header once",
          ),
        );
      }
    }
    return failed() ? null : { headers: own };
  }

  const text = (key: string, required: boolean): { value: string; at: SourceRef } | null => {
    const e = entryOf(node, key);
    if (e === undefined) {
      if (required)
        diagnostics.push(
          error("E_MCP_SERVER", node.at, `${kind} "auth" of server '${server}' needs "${key}"`, hintOf(key)),
        );
      return null;
    }
    if (e.value.kind === "scalar" && typeof e.value.value === "string" && e.value.value !== "")
      return { value: e.value.value, at: e.value.at };
    diagnostics.push(
      error(
        "E_FIELD_TYPE",
        e.value.at,
        `${field(key)} must be a non-empty string, but this is ${describeKind(e.value)}`,
        hintOf(key),
      ),
    );
    return null;
  };
  const endpoint = text("token_endpoint", kind === "client_credentials");
  const audience = text("audience", kind === "token_exchange");
  const scope = text("scope", false);
  const clientId = text("client_id", true);
  const secretEnv = text("client_secret_env", true);
  if (endpoint !== null) {
    const problem = endpointProblem(endpoint.value);
    if (problem !== null)
      diagnostics.push(error("E_MCP_SERVER", endpoint.at, `${field("token_endpoint")} ${problem}`));
  }
  if (secretEnv !== null && !ENV_NAME.test(secretEnv.value)) {
    diagnostics.push(
      error(
        "E_MCP_SERVER",
        secretEnv.at,
        `${field("client_secret_env")} must name an environment variable (letters, digits, _), not hold the secret itself`,
        hintOf("client_secret_env"),
      ),
    );
  }
  const authorization = Object.keys(headers).find((n) => n.toLowerCase() === "authorization");
  if (authorization !== undefined) {
    diagnostics.push(
      error(
        "E_MCP_SERVER",
        entry.keyAt,
        `server '${server}' has an "${authorization}" header and ${kind} "auth": the header would be replaced by the token auth gets`,
        `remove "${authorization}" from "headers"`,
      ),
    );
  }
  if (kind === "token_exchange" && share.value === "all") {
    diagnostics.push(
      error(
        "E_MCP_SERVER",
        share.at ?? entry.keyAt,
        `"share": "all" of server '${server}' would carry one user's exchanged token on a connection every principal uses`,
        `a server with token_exchange auth is reached per principal: use "share": "principal" (the default) or "session"`,
      ),
    );
  }
  if (failed() || clientId === null || secretEnv === null) return null;
  const common = {
    at: entry.keyAt,
    clientId: clientId.value,
    clientSecretEnv: secretEnv.value,
    clientSecretEnvAt: secretEnv.at,
    scope: scope?.value ?? null,
  };
  if (kind === "token_exchange") {
    if (audience === null) return null;
    return {
      headers: {},
      auth: { type: kind, ...common, tokenEndpoint: endpoint?.value ?? null, audience: audience.value },
    };
  }
  if (endpoint === null) return null;
  return {
    headers: {},
    auth: { type: kind, ...common, tokenEndpoint: endpoint.value, audience: audience?.value ?? null },
  };
}

function hintOf(key: string): string | undefined {
  switch (key) {
    case "audience":
      return "the identifier the server's tokens must name as their audience (its aud), e.g. its URL or its client id at the identity provider";
    case "client_secret_env":
      return "the name of an environment variable holding toolgate's client secret, e.g. TOOLGATE_IDP_SECRET";
    case "token_endpoint":
      return "the identity provider's token endpoint, e.g. https://idp.example.com/realms/main/protocol/openid-connect/token";
    case "client_id":
      return "toolgate's own client at the identity provider";
    default:
      return undefined;
  }
}

function stringMap(node: SourceNode, server: string, diagnostics: Diagnostic[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (node.kind !== "map") {
    diagnostics.push(
      error(
        "E_FIELD_TYPE",
        node.at,
        `"auth.headers" of server '${server}' must be an object of strings, but this is ${describeKind(node)}`,
      ),
    );
    return out;
  }
  for (const e of (node as SourceMap).entries) {
    if (e.value.kind === "scalar" && typeof e.value.value === "string") {
      Object.defineProperty(out, e.key, {
        value: e.value.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      diagnostics.push(
        error(
          "E_FIELD_TYPE",
          e.value.at,
          `"auth.headers.${e.key}" of server '${server}' must be a string, but this is ${describeKind(e.value)}`,
        ),
      );
    }
  }
  return out;
}
