import type { LoadedContext } from "../contextLoader.js";
import { localRealpath } from "../../upstream/localRealpath.js";
import { configTargets, readCatalogs } from "../policy/liveCatalogs.js";
import { SelfTestCatalogs } from "./selfTestCatalogs.js";
import { runSelfTest, selfTestFile, type SelfTestLog } from "./selfTestRun.js";

/**
 * serve's self-test: the cases decided over serve's own configuration directory and policy, each case's
 * context resolved as serve resolves a client's (`token:` names an entry of serve's --tokens file). The
 * servers the cases name are read on connections of their own, at start before anything listens, and when
 * a reload first names one; their catalogs are kept for the reloads after.
 */
export class ServeSelfTest {
  private readonly catalogs = new SelfTestCatalogs();

  constructor(
    private readonly flags: {
      /** `--self-test FILE`: wins over config.yaml's `tests:`. */
      selfTest?: string;
      /** serve's --tokens file. */
      tokens?: string;
      /** `--startup-timeout` in seconds (an entry's `startup_timeout` wins). */
      startupTimeout: number;
    },
    private readonly log: SelfTestLog,
  ) {}

  /** What a reload watches besides the directory, the policy and the tokens file. */
  watched(loaded: LoadedContext): string[] {
    const file = selfTestFile(this.flags.selfTest, loaded.config);
    return file === null ? [] : [file.path];
  }

  /**
   * Runs the cases against `loaded` (the configuration at start, or the one a reload read): [] without a
   * test file or when every case passed; else the problem lines, printed, the last ending in `consequence`.
   */
  async run(loaded: LoadedContext, consequence: string): Promise<string[]> {
    const file = selfTestFile(this.flags.selfTest, loaded.config);
    if (file === null) return [];
    const targets = configTargets(loaded.config);
    return runSelfTest(
      {
        file,
        subject: { kind: "config", config: loaded.config, policy: loaded.policy },
        catalogs: (named) =>
          this.catalogs.get(
            named.filter((n) => targets.some((t) => t.name === n)),
            (missing) =>
              readCatalogs(
                targets.filter((t) => missing.includes(t.name)),
                this.flags.startupTimeout * 1000,
              ),
          ),
        ...(this.flags.tokens === undefined ? {} : { tokens: this.flags.tokens }),
        realpath: localRealpath(),
      },
      consequence,
      this.log,
    );
  }
}
