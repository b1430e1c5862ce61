import { isSensitiveName } from "../engine/controls/argumentNames.js";
import { scrubSecretValues } from "../engine/controls/redact.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";

/**
 * What the operator configured for reaching a server and must never reach a client or a log: the URL's
 * userinfo and query parameter values, every header value (and the token after `Bearer `/`Basic `), the
 * values of environment variables whose names look secret (`API_KEY`, `GITHUB_TOKEN`, …), and the client
 * secret of its token `auth` (the variable `client_secret_env` names). The tokens toolgate obtains with
 * that auth change as they rotate: a scrubber asks for them each time (SecretScrubber's `held`).
 */
export function serverSecrets(server: McpServerConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  const out = new Set<string>();
  if (server.transport === "stdio") {
    for (const [name, value] of Object.entries(server.env)) if (isSensitiveName(name)) out.add(value);
    return [...out];
  }
  try {
    const url = new URL(server.url);
    for (const part of [url.username, url.password]) {
      if (part === "") continue;
      out.add(part);
      out.add(decoded(part));
    }
    for (const [, value] of url.searchParams) out.add(value);
    for (const raw of url.search.slice(1).split("&")) {
      const at = raw.indexOf("=");
      if (at >= 0) out.add(raw.slice(at + 1));
    }
  } catch {
    // A URL that does not parse never connected; mcp.json's loader reports it.
  }
  const clientSecret = server.auth === undefined ? undefined : env[server.auth.clientSecretEnv];
  if (clientSecret !== undefined) out.add(clientSecret);
  for (const value of Object.values(server.headers)) {
    out.add(value);
    const scheme = /^(?:bearer|basic|token)\s+(.+)$/i.exec(value);
    if (scheme !== null) out.add(scheme[1]!);
  }
  return [...out].filter((s) => s !== "");
}

/** Scrubs the given servers' secrets from what toolgate writes: a log line, an error it relays, a result. */
export class SecretScrubber {
  private readonly configured: string[];

  /** `held`: the tokens held now for reaching the servers (exchanged, client credentials), asked each time. */
  constructor(
    servers: readonly McpServerConfig[],
    private readonly held: () => readonly string[] = () => [],
  ) {
    this.configured = [...new Set(servers.flatMap((s) => serverSecrets(s)))];
  }

  private get secrets(): string[] {
    const held = this.held().filter((s) => s !== "");
    return held.length === 0 ? this.configured : [...this.configured, ...held];
  }

  get empty(): boolean {
    return this.secrets.length === 0;
  }

  text(text: string): string {
    const secrets = this.secrets;
    return secrets.length === 0 ? text : scrubSecretValues(text, secrets);
  }

  /** A JSON value (a relayed result or error) with every string scrubbed; the same object when nothing is secret. */
  json<T>(value: T): T {
    const secrets = this.secrets;
    if (secrets.length === 0) return value;
    const text = JSON.stringify(value);
    if (text === undefined) return value;
    const scrubbed = scrubSecretValues(text, secrets);
    if (scrubbed === text) return value;
    try {
      return JSON.parse(scrubbed) as T;
    } catch {
      // A secret that overlaps the JSON syntax itself: nothing of the value is passed on.
      throw new Error("the server's answer holds a configured secret that cannot be scrubbed from it");
    }
  }
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
