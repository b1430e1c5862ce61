/**
 * Whether the gateway should be sent traffic (`GET /readyz`): its configuration is loaded, its state store
 * answers, it is not draining, and every server named with `--require-server` has its catalog in. What a
 * failed check says names no server, path or token: readiness is answered without credentials.
 */

export interface ReadinessChecks {
  /** Whether the state store answers now (memory: always; Redis: a PING within a short bound). */
  stateStore(): Promise<boolean>;
  /** The servers that must have their catalog in (`--require-server`). */
  requiredServers: readonly string[];
  /** Whether `server`'s catalog is in. */
  hasCatalog(server: string): boolean;
}

export type ReadinessAnswer =
  | { ready: true }
  | { ready: false; check: "configuration" | "draining" | "state_store" | "required_server"; reason: string };

export class Readiness {
  private configured = false;
  private drainingNow = false;

  constructor(private readonly checks: ReadinessChecks) {}

  /** The configuration is loaded and the gateway is serving. */
  setConfigured(): void {
    this.configured = true;
  }

  /** The gateway stops taking new work (SIGTERM): readiness goes false for good. */
  setDraining(): void {
    this.drainingNow = true;
  }

  get draining(): boolean {
    return this.drainingNow;
  }

  async check(): Promise<ReadinessAnswer> {
    if (!this.configured) {
      return { ready: false, check: "configuration", reason: "the configuration is not loaded yet" };
    }
    if (this.drainingNow) {
      return { ready: false, check: "draining", reason: "the gateway is draining: it takes no new work" };
    }
    let answers: boolean;
    try {
      answers = await this.checks.stateStore();
    } catch {
      answers = false;
    }
    if (!answers) return { ready: false, check: "state_store", reason: "the state store does not answer" };
    const missing = this.checks.requiredServers.filter((s) => !this.checks.hasCatalog(s)).length;
    if (missing > 0) {
      // Never the name: anyone may ask /readyz.
      return {
        ready: false,
        check: "required_server",
        reason:
          missing === 1
            ? "a required server is not ready (its catalog is not in yet)"
            : `${missing} required servers are not ready (their catalogs are not in yet)`,
      };
    }
    return { ready: true };
  }
}
