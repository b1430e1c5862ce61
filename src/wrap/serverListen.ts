import { META } from "../engine/protocol/eras.js";
import { isJsonObject, type JsonRpcNotification } from "../engine/rpc/jsonRpc.js";
import type { PrivateRequests } from "./privateRequests.js";
import type { WrapEra } from "./wrapEra.js";

/** A listen stream stays open as long as the connection: its request is never timed out. */
const OPEN_UNTIL_CLOSED_MS = 2_147_483_647;

export interface ServerListenDeps {
  privateRequests: PrivateRequests;
  era: WrapEra;
  /** The server's tools changed: the catalog must be fetched again before the next call is decided. */
  onToolsChanged(): void;
  log(line: string): void;
}

/**
 * toolgate's own `subscriptions/listen` stream to a server of the modern era. That era announces changed
 * tools only on a stream the client opened, and the client may never open one; without it a tool that
 * drifts after it was shown (a pinned tool's new schema) would go unseen until the client lists again.
 * What arrives on toolgate's stream is toolgate's: it is consumed here and never reaches the client.
 */
export class ServerListen {
  private id: string | null = null;

  constructor(private readonly deps: ServerListenDeps) {}

  /** Opens the stream once (the connection is in the modern era and the server has tools). */
  open(): void {
    if (this.id !== null || this.deps.era.era !== "modern") return;
    const { id, answer } = this.deps.privateRequests.start(
      "subscriptions/listen",
      this.deps.era.ownParams({ notifications: { toolsListChanged: true } }),
      OPEN_UNTIL_CLOSED_MS,
    );
    this.id = id;
    void answer
      .then(({ response }) => {
        if (response.error !== undefined) {
          this.deps.log(
            `the server refused subscriptions/listen (${response.error.code}: ${response.error.message}); a change of its tools is seen at the next list`,
          );
        }
      })
      .catch(() => {})
      .finally(() => {
        if (this.id === id) this.id = null;
      });
  }

  /** Whether `message` came on toolgate's own stream (and was handled here). */
  consumes(message: JsonRpcNotification): boolean {
    if (this.id === null) return false;
    const meta = isJsonObject(message.params) ? message.params._meta : undefined;
    if (!isJsonObject(meta) || meta[META.subscriptionId] !== this.id) return false;
    if (message.method === "notifications/tools/list_changed") this.deps.onToolsChanged();
    return true;
  }
}
