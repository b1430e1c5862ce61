import { isJsonObject, type JsonRpcNotification, type JsonRpcResponse } from "../engine/rpc/jsonRpc.js";
import type { ToolCatalog } from "../session/toolCatalog.js";
import {
  learnedUnknownToolAnswer,
  probeToolName,
  sdkUnknownToolAnswer,
  type UnknownToolAnswer,
} from "../session/unknownToolAnswer.js";
import type { PrivateRequests } from "./privateRequests.js";
import type { WrapEra } from "./wrapEra.js";

export interface ServerReadinessDeps {
  catalog: ToolCatalog;
  privateRequests: PrivateRequests;
  era: WrapEra;
  /** Bound on waiting for the handshake before a call is decided. */
  timeoutMs: number;
  /** Bound on toolgate's own `server/discover` (the server's first request in the modern era: its start). */
  startupTimeoutMs?: number;
  /** Opens toolgate's own listen stream once the modern era's start is done (ServerListen). */
  listen?: { open(): void; consumes(message: JsonRpcNotification): boolean };
  log(line: string): void;
}

/**
 * What wrap must know of the server before it decides a call: whether it has tools and what it is called
 * (from its `initialize` or `server/discover` answer), its catalog, and its answer for a tool it does not
 * have (learned by calling a random unused name). Started after the legacy handshake, or at the first
 * request of the modern era, which has none.
 */
export class ServerReadiness {
  /** `serverInfo.name` from the server's `initialize` answer. */
  serverName: string | undefined;
  unknownAnswer: UnknownToolAnswer | null = null;
  private serverHasTools: boolean | null = null;
  private isStarted = false;
  private discovering = false;
  private signalStarted: () => void = () => {};
  private readonly startedSignal = new Promise<void>((resolve) => (this.signalStarted = resolve));
  private probe: Promise<void> | null = null;

  constructor(private readonly deps: ServerReadinessDeps) {}

  get started(): boolean {
    return this.isStarted;
  }

  /** Everything is in hand: a call can be decided at once. */
  get ready(): boolean {
    return this.isStarted && this.deps.catalog.fresh && this.unknownAnswer !== null;
  }

  /** Waits (bounded) until the catalog is current and the unknown-tool answer is known. */
  async whenReady(): Promise<void> {
    if (!this.isStarted) {
      // A client that calls before `notifications/initialized`: start once the server has answered
      // `initialize`, otherwise wait for the handshake, but not forever.
      if (this.serverHasTools !== null) this.start();
      else await this.withTimeout(this.startedSignal);
    }
    if (!this.isStarted) return;
    await Promise.all([this.deps.catalog.ensureFresh(), this.probe]);
  }

  /** After the handshake: fetch the catalog and learn the unknown-tool answer, concurrently. */
  start(): void {
    if (this.isStarted) return;
    this.isStarted = true;
    if (this.serverHasTools === false) this.deps.catalog.setNoTools();
    else void this.deps.catalog.refresh();
    this.probe = this.learnUnknownToolAnswer();
    this.signalStarted();
  }

  /**
   * The modern era's start: what the server offers comes from a `server/discover` answer (the client's, or
   * toolgate's own when the client sent none), then the catalog and the probe, as after a handshake.
   */
  startModern(): void {
    if (this.isStarted || this.discovering) return;
    if (this.serverHasTools !== null) return this.startListening();
    this.discovering = true;
    void this.deps.privateRequests
      .start("server/discover", this.deps.era.ownParams({}), this.deps.startupTimeoutMs)
      .answer.then(({ response }) => this.noteDiscover(response))
      .catch((error: unknown) =>
        this.deps.log(`server/discover failed: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => this.startListening());
  }

  /** As start(), and a server with tools is listened to for changes (the modern era's only way to hear). */
  private startListening(): void {
    this.start();
    if (this.serverHasTools !== false) this.deps.listen?.open();
  }

  /** A notification on toolgate's own listen stream: handled, and not the client's. */
  listens(message: JsonRpcNotification): boolean {
    return this.deps.listen?.consumes(message) ?? false;
  }

  noteDiscover(response: JsonRpcResponse): void {
    const noted = this.deps.era.noteDiscover(response.result);
    if (noted !== null) this.serverHasTools = noted.hasTools;
  }

  noteInitialize(response: JsonRpcResponse): void {
    const result = response.result;
    if (!isJsonObject(result)) return;
    const capabilities = result.capabilities;
    this.serverHasTools = isJsonObject(capabilities) && isJsonObject(capabilities.tools);
    const info = result.serverInfo;
    if (isJsonObject(info) && typeof info.name === "string" && info.name !== "") this.serverName = info.name;
  }

  private async learnUnknownToolAnswer(): Promise<void> {
    const probeName = probeToolName();
    try {
      const response = await this.deps.privateRequests.request(
        "tools/call",
        this.deps.era.ownParams({ name: probeName, arguments: {} }),
      );
      this.unknownAnswer = learnedUnknownToolAnswer(probeName, response);
    } catch (error) {
      this.deps.log(
        `could not learn the server's answer for unknown tools (${error instanceof Error ? error.message : String(error)}); using the MCP SDK's answer`,
      );
      this.unknownAnswer = sdkUnknownToolAnswer();
    }
  }

  private withTimeout(promise: Promise<void>): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.deps.timeoutMs);
      timer.unref();
      void promise.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
