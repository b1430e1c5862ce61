/**
 * The state stores `serve` can keep what its replicas share in, by the scheme of `--state` / `state:`.
 * Reading a URL is pure text work, so it lives here, below both its readers: src/config, which gives a bad
 * `state:` in config.yaml its file:line at load time, and src/state, whose registry opens each scheme's
 * backend (with its client library and I/O). The two cannot import each other (one floor); a scheme added
 * here without a backend in src/state/stateRegistry.ts does not type-check, nor a backend without a scheme.
 */
export const STATE_SCHEMES = ["memory", "redis", "rediss"] as const;

export type StateScheme = (typeof STATE_SCHEMES)[number];

/** A state URL that names a store toolgate can use. */
export interface StateUrl {
  scheme: StateScheme;
  /** As given (with its credentials, if any): what the backend connects to. */
  url: string;
  /** Without credentials, for messages and logs: `memory`, `redis://HOST:PORT[/DB]`. */
  where: string;
}

/** How each scheme is written, for messages and `--help`. */
export const STATE_URL_FORMS: Record<StateScheme, string> = {
  memory: "memory",
  redis: "redis://[USER:PASSWORD@]HOST:PORT[/DB]",
  rediss: "rediss://[USER:PASSWORD@]HOST:PORT[/DB] (Redis over TLS)",
};

/** `memory, redis://…, or rediss://…`: every form, for a message that says what would have been right. */
export function stateUrlForms(): string {
  const forms = STATE_SCHEMES.map((scheme) => STATE_URL_FORMS[scheme]);
  return `${forms.slice(0, -1).join(", ")} or ${forms.at(-1)!}`;
}

/** What to write instead of a URL that names no store, wherever it was given (`--state`, `state:`). */
export const STATE_URL_HINT =
  "write one of those forms, e.g. redis://10.0.0.9:6379/0 for replicas sharing a Redis; leave it out to keep the state in this process's memory";

/**
 * Reads `text` as a state URL: the store it names, or what is wrong with it in words that do not repeat a
 * password. `problem` completes "… must be memory, redis://… or rediss://…, but ___".
 */
export function readStateUrl(text: string): StateUrl | { problem: string } {
  if (text === "memory") return { scheme: "memory", url: text, where: "memory" };
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { problem: `'${hidden(text)}' is not a URL` };
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (scheme === "redis" || scheme === "rediss") return readRedisUrl(scheme, text, parsed);
  return { problem: `'${parsed.protocol}' is not a scheme toolgate keeps state in` };
}

/** `redis://` and `rediss://`: a host, an optional port, an optional database number, nothing else. */
function readRedisUrl(scheme: "redis" | "rediss", text: string, parsed: URL): StateUrl | { problem: string } {
  const path = parsed.pathname === "/" ? "" : parsed.pathname;
  const where = `${scheme}://${parsed.host}${path}`;
  if (parsed.hostname === "") return { problem: `'${where}' names no host` };
  if (!/^(\/\d+)?$/.test(path))
    return { problem: `the database '${path.slice(1)}' in '${where}' is not a number` };
  // ioredis reads options from the query (family, db, …) and would let them override the URL; none is needed.
  if (parsed.search !== "" || parsed.hash !== "") {
    return {
      problem: `'${where}' has a query or fragment (${parsed.search}${parsed.hash}), which toolgate does not read`,
    };
  }
  return { scheme, url: text, where };
}

/** `scheme://user:password@host…` with the credentials replaced, for a message about a URL that did not parse. */
function hidden(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1…@");
}
