import { resolve } from "node:path";
import type { ToolGate } from "../engine/model/gate.js";
import type { McpServerConfig } from "../engine/model/mcpServers.js";
import type { JsonObject } from "../engine/rpc/jsonRpc.js";
import type { ServerView } from "../session/serverView.js";
import { localRealpath } from "../upstream/localRealpath.js";
import { SecretScrubber } from "../upstream/serverSecrets.js";
import { UpstreamLink, type LinkHooks } from "../upstream/upstreamLink.js";
import { OWN_CREDENTIALS } from "../upstream/upstreamCredentials.js";
import type { SessionOptions } from "./sessionOptions.js";
import type { ServerSlot } from "./toolRouter.js";

/** Makes the link to one server, with the hooks its pool gives it. */
export type MakeLink = (hooks: Omit<LinkHooks, "log">) => UpstreamLink;

/**
 * One enabled server of a serve session: how the session decides about it (its gate; for a stdio server,
 * which shares toolgate's filesystem, the realpath its `realpath: true` scopes resolve links with), what is
 * scrubbed from what is relayed about it (with the tokens its `auth` holds), and its link, attached
 * (`attach`) on first use, which reaches a server with token `auth` as the session's principal.
 */
export function serverSlot(
  config: McpServerConfig,
  gate: ToolGate,
  options: SessionOptions,
  session: { capabilities(): JsonObject; attach(make: MakeLink): UpstreamLink },
): ServerSlot {
  const name = config.name;
  const view: ServerView = { gate, name, serverId: () => name };
  if (config.transport === "stdio") {
    const base = options.baseDir ?? process.cwd();
    view.realpath = localRealpath(config.cwd === null ? process.cwd() : resolve(base, config.cwd));
  }
  // A server with token auth is reached as this session's principal (token_exchange) or as the gateway.
  const auth = (options.credentials ?? OWN_CREDENTIALS).forServer(config, options.principal ?? null);
  const make: MakeLink = (hooks) =>
    new UpstreamLink({
      server: config,
      connect: options.connect,
      capabilities: () => session.capabilities(),
      ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
      timeoutMs: options.upstreamTimeoutMs,
      ...(options.startupTimeoutMs === undefined ? {} : { startupTimeoutMs: options.startupTimeoutMs }),
      ...(options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes }),
      backoff: options.backoff,
      hooks: { ...hooks, log: options.log },
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      ...(auth === undefined ? {} : { auth }),
    });
  let link: UpstreamLink | null = null;
  const secrets = new SecretScrubber([config], () => auth?.secrets() ?? []);
  const slot = { name, config, view, secrets } as ServerSlot;
  Object.defineProperty(slot, "link", {
    enumerable: true,
    get: (): UpstreamLink => (link ??= session.attach(make)),
  });
  return slot;
}
