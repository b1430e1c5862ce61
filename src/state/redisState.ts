import { Redis } from "ioredis";
import type { SessionCounters } from "../engine/model/decision.js";
import type { StateUrl } from "../engine/model/stateUrl.js";
import { StateUnavailable, type SharedState } from "./sharedState.js";

export interface RedisStateOptions {
  /** `redis://` or `rediss://` (TLS), as stateUrl.ts read it. */
  url: StateUrl;
  /** A principal's counts are dropped once it has been idle this long. */
  idleMs: number;
  /** Keys start with this (default `toolgate:`), so one Redis can hold several deployments. */
  prefix?: string;
  /** With `rediss://`: the CA certificates (PEM) the server's certificate must chain to, instead of Node's. */
  ca?: Buffer;
  /** One line when the state becomes unreachable, and one when it is back (never one per request). */
  log: (line: string) => void;
}

/**
 * The state in Redis, for replicas. Each operation is one atomic command (or MULTI): counts with HINCRBY,
 * single use with SET NX, ownership with SET and a TTL. Requests are never queued while Redis is away
 * (no offline queue, no retries per request): an operation that cannot be done now fails at once with
 * StateUnavailable, and the caller refuses what needed it. The client reconnects on its own.
 * Opened through redisBackend.ts, which calls start() and agree() before anyone else sees it.
 */
export class RedisState implements SharedState {
  readonly where: string;
  readonly sharedByReplicas = true;
  private readonly redis: Redis;
  private readonly prefix: string;
  private down: string | null = null;
  private closed = false;

  constructor(private readonly options: RedisStateOptions) {
    this.where = options.url.where;
    this.prefix = options.prefix ?? "toolgate:";
    this.redis = new Redis(options.url.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      // Bounded back-off: at most one attempt every 2 s while Redis is away.
      retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
      lazyConnect: true,
      // Said here, not left to ioredis, which turns TLS on only for a URL spelled exactly `rediss://`.
      ...(options.url.scheme === "rediss" ? { tls: options.ca === undefined ? {} : { ca: options.ca } } : {}),
    });
    this.redis.on("error", (error: Error) => this.wentDown(error.message));
    this.redis.on("ready", () => {
      if (this.down !== null) options.log(`state ${this.where} is reachable again`);
      this.down = null;
    });
  }

  /** Connects once; an unreachable Redis is said (the gateway still starts, and refuses what needs it). */
  async start(): Promise<void> {
    try {
      await this.redis.connect();
    } catch (error) {
      this.wentDown(error instanceof Error ? error.message : String(error));
    }
  }

  async count(principal: string, isToolCall: boolean): Promise<SessionCounters> {
    const key = `${this.prefix}count:${principal}`;
    const replies = await this.run(() =>
      this.redis
        .multi()
        .hincrby(key, "requests", 1)
        .hincrby(key, "toolCalls", isToolCall ? 1 : 0)
        .pexpire(key, this.options.idleMs)
        .exec(),
    );
    const requests = Number(replies?.[0]?.[1]);
    const toolCalls = Number(replies?.[1]?.[1]);
    if (!Number.isInteger(requests) || !Number.isInteger(toolCalls)) {
      throw new StateUnavailable(`state ${this.where} gave no count for ${principal}`);
    }
    return { requests: requests - 1, toolCalls: toolCalls - (isToolCall ? 1 : 0) };
  }

  async claim(id: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(expiresAt - Date.now()));
    const reply = await this.run(() => this.redis.set(`${this.prefix}spent:${id}`, "1", "PX", ttl, "NX"));
    return reply === "OK";
  }

  /**
   * Records `fingerprint` as the key `name` replicas use, unless one is recorded; `true` when the recorded
   * one is this one. (To rotate the key, stop every replica and delete `<prefix>key:<name>`.)
   */
  async agree(name: string, fingerprint: string): Promise<boolean> {
    const key = `${this.prefix}key:${name}`;
    await this.run(() => this.redis.set(key, fingerprint, "NX"));
    return (await this.run(() => this.redis.get(key))) === fingerprint;
  }

  async own(sessionId: string, owner: string, ttlMs: number): Promise<void> {
    await this.run(() =>
      this.redis.set(`${this.prefix}session:${sessionId}`, owner, "PX", Math.max(1, ttlMs)),
    );
  }

  async ownerOf(sessionId: string): Promise<string | null> {
    return this.run(() => this.redis.get(`${this.prefix}session:${sessionId}`));
  }

  async disown(sessionId: string): Promise<void> {
    await this.run(() => this.redis.del(`${this.prefix}session:${sessionId}`));
  }

  async ping(): Promise<void> {
    await this.run(() => this.redis.ping());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.redis.disconnect();
    return Promise.resolve();
  }

  private async run<R>(operation: () => Promise<R>): Promise<R> {
    // Closed on purpose (serve stopping): refused like an unreachable store, without saying it went away.
    if (this.closed) throw new StateUnavailable(`state ${this.where} is closed`);
    if (this.redis.status !== "ready") {
      this.wentDown(`connection ${this.redis.status}`);
      throw new StateUnavailable(`state ${this.where} is unreachable (${this.down ?? this.redis.status})`);
    }
    try {
      return await operation();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A reply error is the store refusing this one command. Any other failure is the connection's, even
      // while the client still says "ready": a socket the server has just closed refuses writes ("Stream
      // isn't writeable") before the client notices it is gone.
      if (this.redis.status !== "ready" || !(error instanceof Error && error.name === "ReplyError")) {
        this.wentDown(message);
      }
      throw new StateUnavailable(`state ${this.where} could not be used (${message})`);
    }
  }

  private wentDown(reason: string): void {
    if (this.down === null) {
      this.options.log(
        `state ${this.where} is unreachable (${reason}): requests that need it are refused (E_STATE_UNAVAILABLE) until it is back`,
      );
    }
    this.down = reason;
  }
}
