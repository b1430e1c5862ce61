/**
 * Client messages handled in arrival order: while one is being handled asynchronously (a call waiting for
 * the catalog or the unknown-tool answer), later ones wait behind it, so a client never sees its requests
 * overtake each other. A message whose handling throws goes to `failed`.
 */
export class ArrivalQueue<M> {
  private waiting = false;
  private readonly backlog: M[] = [];
  private idleWaiters: Array<() => void> = [];

  constructor(
    /** Handles one message: undefined when done at once, else a promise the next message waits for. */
    private readonly handle: (message: M) => Promise<void> | undefined,
    private readonly failed: (message: M, error: unknown) => void,
  ) {}

  push(message: M): void {
    if (this.waiting) this.backlog.push(message);
    else this.run(message);
  }

  /** Resolves once no message is waiting to be handled. */
  idle(): Promise<void> {
    if (!this.waiting && this.backlog.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private run(message: M): void {
    let pending: Promise<void> | undefined;
    try {
      pending = this.handle(message);
    } catch (error) {
      this.failed(message, error);
    }
    if (pending === undefined) return;
    this.waiting = true;
    pending
      .catch((error: unknown) => this.failed(message, error))
      .finally(() => {
        this.waiting = false;
        this.drain();
      });
  }

  private drain(): void {
    while (!this.waiting && this.backlog.length > 0) this.run(this.backlog.shift()!);
    if (!this.waiting && this.backlog.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
