import { basename } from "node:path";
import type { ToolGate } from "../../engine/model/gate.js";
import type { CatalogSnapshot } from "../../session/toolCatalog.js";
import { localRealpath } from "../../upstream/localRealpath.js";
import { readCatalogs } from "../policy/liveCatalogs.js";
import type { WrapPlan } from "../wrapConfigDir.js";
import { SelfTestCatalogs } from "./selfTestCatalogs.js";
import { runSelfTest, type SelfTestFile, type SelfTestLog } from "./selfTestRun.js";

/**
 * wrap's self-test: the cases decided by the gate wrap decides with (its policy, and with --server the
 * layers of its context), over its server's catalog. At start the catalog is read on a connection of its
 * own (the command run once and stopped, as `policy test -- CMD` does) before the server is started for the
 * client; later self-tests (a reload) run over the catalog the proxy fetched last.
 */
export class WrapSelfTest {
  private readonly catalogs = new SelfTestCatalogs();

  constructor(
    private readonly options: {
      /** `--self-test FILE`: wins over config.yaml's `tests:`. */
      flag: string | undefined;
      /** `--startup-timeout` (the mcp.json entry's `startup_timeout` wins). */
      startupTimeoutMs: number;
      log: SelfTestLog;
    },
  ) {}

  /** The test file for this plan, or null (no self-test). */
  file(plan: WrapPlan): SelfTestFile | null {
    const flag = this.options.flag;
    return flag === undefined ? (plan.tests ?? null) : { path: flag, shown: flag };
  }

  /** What a reload watches besides the policy and the configuration directory. */
  watched(plan: WrapPlan): string[] {
    const file = this.file(plan);
    return file === null ? [] : [file.path];
  }

  /**
   * Runs the cases of this plan's test file against `gate` ([] without a test file or when every case
   * passed; else the problem lines, printed, the last one ending in `consequence`).
   */
  async run(plan: WrapPlan, gate: ToolGate, consequence: string): Promise<string[]> {
    const file = this.file(plan);
    if (file === null) return [];
    const server = serverName(plan);
    const target = {
      transport: "stdio" as const,
      name: server,
      command: plan.command,
      args: plan.args,
      env: plan.env ?? { ...process.env },
      ...(plan.cwd === undefined ? {} : { cwd: plan.cwd }),
      ...(plan.startupTimeoutMs === undefined ? {} : { startupTimeoutMs: plan.startupTimeoutMs }),
    };
    return runSelfTest(
      {
        file,
        subject: { kind: "gate", server, gate, policy: plan.policyShown ?? null },
        // Only wrap's own server can be read: a case naming another is reported as not configured.
        catalogs: (named) =>
          this.catalogs.get(
            named.filter((n) => n === server),
            (missing) => readCatalogs(missing.length === 0 ? [] : [target], this.options.startupTimeoutMs),
          ),
        realpath: localRealpath(plan.cwd ?? process.cwd()),
      },
      consequence,
      this.options.log,
    );
  }

  /** The proxy fetched the server's catalog: the next self-test runs over it. */
  fetched(plan: WrapPlan, snapshot: CatalogSnapshot): void {
    this.catalogs.fetched(serverName(plan), snapshot);
  }
}

/**
 * The server as a case's `server:` names it: the name pins use for it (--server, --label, the one server
 * the pins name), else the command's name.
 */
export function serverName(plan: WrapPlan): string {
  return plan.pins.serverId ?? basename(plan.command);
}
