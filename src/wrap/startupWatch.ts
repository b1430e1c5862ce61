/**
 * The start-up limit of a wrapped server: it runs from the first request sent to the server until the
 * server's first frame; past the limit, the server is taken for one that did not start (E_UPSTREAM_START),
 * with a message that names the setting to raise.
 */
export class StartupWatch {
  private timer: NodeJS.Timeout | null = null;
  private spoke = false;

  constructor(
    private readonly options: {
      timeoutMs: number;
      serverId: string | undefined;
      /** How the limit is named in the message (`--startup-timeout <seconds>`, an entry's setting). */
      setting: string | undefined;
      log(line: string): void;
      /** Called once, with the message, when the limit is reached. */
      expired(message: string): void;
    },
  ) {}

  /** A request went to the server: the watch starts unless it runs, or the server already spoke. */
  arm(): void {
    if (this.spoke || this.timer !== null) return;
    const { timeoutMs, serverId, setting } = this.options;
    this.timer = setTimeout(() => {
      const seconds = Math.round(timeoutMs / 100) / 10;
      const message = `E_UPSTREAM_START: MCP server${serverId === undefined ? "" : ` '${serverId}'`} did not answer within ${seconds} s (startup_timeout); if it is only slow, give it longer with ${setting ?? "--startup-timeout <seconds>"}`;
      this.options.log(message);
      this.options.expired(message);
    }, timeoutMs);
    this.timer.unref();
  }

  /** The server sent a frame: it started. */
  heard(): void {
    if (this.spoke) return;
    this.spoke = true;
    this.stop();
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
