import type { RealpathHook } from "../engine/model/decision.js";
import type { ToolContext, ToolGate } from "../engine/model/gate.js";
import type { CatalogSnapshot } from "./toolCatalog.js";

/** One upstream server as a session decides about it. */
export interface ServerView {
  gate: ToolGate;
  /**
   * The server's name in audit events (`server`) and log lines (`[name] …`) of a session in front of several
   * servers (serve); `null` when the session fronts one (wrap).
   */
  name: string | null;
  /**
   * The server as `tool_pins` entries name it (`server_id`): the name toolgate knows it by, never the name the
   * server gives itself.
   */
  serverId(): string | undefined;
  /** The server as approval questions show it, when that differs from serverId() (wrap without a name). */
  shownName?(): string | undefined;
  /** Resolves symbolic links as the server sees them (stdio servers share toolgate's filesystem). */
  realpath?: RealpathHook;
}

/** What the pin stage needs about a tool the server listed: its server and its schema's raw text. */
export function listedToolContext(
  server: ServerView,
  exactSchemaText: () => string | undefined,
): ToolContext {
  const context: ToolContext = { listed: true, exactSchemaText };
  const id = server.serverId();
  if (id !== undefined) context.serverId = id;
  return context;
}

export function catalogToolContext(server: ServerView, snapshot: CatalogSnapshot, tool: string): ToolContext {
  return listedToolContext(server, () => snapshot.exactSchemaText(tool));
}
