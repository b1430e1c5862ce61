import { LOG_LEVELS, META } from "../engine/protocol/eras.js";
import { isJsonObject } from "../engine/rpc/jsonRpc.js";
import type { RequestScope } from "./clientLink.js";

type Json = Record<string, unknown>;

/** What a listen stream may ask for, and the notification each stands for. */
const LISTENABLE = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"];
const LISTEN_KEYS: Record<string, string> = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
};

function wantsLog(scope: RequestScope, params: Json | undefined): boolean {
  const wanted = scope.envelope?.logLevel;
  if (wanted === undefined) return false;
  const level = typeof params?.level === "string" ? LOG_LEVELS.indexOf(params.level) : -1;
  return level >= LOG_LEVELS.indexOf(wanted);
}

/**
 * The ways a session's client hears from it outside an answer: on the stream of a related request, on the
 * legacy connection's own stream, and on the modern era's `subscriptions/listen` streams, each given only
 * what it asked for.
 */
export class ClientStreams {
  /** Modern clients' `subscriptions/listen` streams, with what each asked for. */
  private readonly listeners = new Set<{ scope: RequestScope; honored: Set<string> }>();

  /**
   * `subscriptions/listen` (modern era): acknowledged with what toolgate will send (list changes of tools,
   * prompts and resources; resource subscriptions are not offered), then open until the client ends it.
   */
  listen(params: Json, scope: RequestScope): Promise<Json> {
    const wanted = isJsonObject(params.notifications) ? params.notifications : {};
    const honored = new Set(LISTENABLE.filter((key) => wanted[key] === true));
    const id = { [META.subscriptionId]: scope.id };
    scope.notify("notifications/subscriptions/acknowledged", {
      notifications: Object.fromEntries([...honored].map((key) => [key, true])),
      _meta: id,
    });
    const listener = { scope, honored };
    this.listeners.add(listener);
    return new Promise((resolve) => {
      const end = (): void => {
        this.listeners.delete(listener);
        resolve({ _meta: id });
      };
      if (scope.signal.aborted) end();
      else scope.signal.addEventListener("abort", end, { once: true });
    });
  }

  /**
   * To the client: on the stream of `related` when given, else on the legacy connection's own (`legacy`)
   * and the listen streams that asked for it.
   */
  notify(
    legacy: { notify(method: string, params?: Json): void } | null,
    method: string,
    params?: Json,
    related?: RequestScope,
  ): void {
    if (related !== undefined) {
      // A modern request gets log messages only when it asked for them, at its level or above.
      if (method === "notifications/message" && related.era === "modern" && !wantsLog(related, params))
        return;
      related.notify(method, params);
      return;
    }
    legacy?.notify(method, params);
    const key = LISTEN_KEYS[method];
    if (key === undefined) return;
    for (const { scope, honored } of this.listeners) {
      if (honored.has(key)) scope.notify(method, { ...params, _meta: { [META.subscriptionId]: scope.id } });
    }
  }
}
