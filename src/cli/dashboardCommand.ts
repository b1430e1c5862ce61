import { homedir } from "node:os";
import type { Command } from "commander";
import { loadConfigDir, resolveConfigDirPath } from "../config/configDir.js";
import { MIN_TOKEN_LENGTH } from "../config/tokensFile.js";
import { CatalogCache } from "../dashboard/catalogCache.js";
import { catalogFetcher } from "./dashboardCatalogs.js";
import { startDashboard } from "../dashboard/server.js";
import { secretsEqual } from "../dashboard/guard.js";
import { hasErrors } from "../engine/model/diagnostics.js";
import { localPrincipal, type PrincipalRights } from "../engine/model/principal.js";
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from "../upstream/upstream.js";
import { CONFIG_DIR_HELP, POLICY_FLAG_HELP, policyLocation, printDiagnostics } from "./contextOptions.js";
import { errorText, printError } from "./errorReport.js";
import { collect, integer } from "./optionParsers.js";

/**
 * `toolgate dashboard`: the verdict matrix, the audit logs and the what-if replay of a configuration
 * directory in a browser (docs/dashboard.md). The command owns what the pages must not choose: the directory,
 * the policy, the token, and which audit logs may be read (a page never names a log; the what-if page names a
 * candidate only from the directory's own list). Catalogs are fetched the way `toolgate info`
 * fetches them (this module passes that code path to the dashboard, which sits below the CLI).
 */

interface DashboardFlags {
  configDir?: string;
  policy?: string;
  host: string;
  port: number;
  token?: string;
  auditLog: string[];
  timeout: number;
  catalogTtl: number;
}

const EXIT_BAD_INPUT = 2;
const LOCAL_OPERATOR_RIGHTS: PrincipalRights = { mcp: false, dashboard: "viewer", approves: null };
const DEFAULT_PORT = 4747;
const LOOPBACK = ["127.0.0.1", "::1", "localhost"];
const WILDCARD = ["0.0.0.0", "::", "[::]"];

export function registerDashboardCommand(program: Command): void {
  program
    .command("dashboard")
    .description(
      "a web dashboard over a configuration directory: the verdict of every tool in every layer for a chosen context, and the chain status and events of audit logs",
    )
    .option("--config-dir <dir>", CONFIG_DIR_HELP)
    .option("--policy <file>", POLICY_FLAG_HELP)
    .option("--host <address>", "address to listen on (loopback by default)", "127.0.0.1")
    .option(
      "--port <port>",
      "port to listen on (0: any free port)",
      integer(0, "a port number"),
      DEFAULT_PORT,
    )
    .option(
      "--token <token>",
      `the token people sign in with (else $TOOLGATE_TOKEN; at least ${MIN_TOKEN_LENGTH} characters)`,
    )
    .option(
      "--audit-log <file>",
      "an audit log the audit and what-if pages may read (repeatable)",
      collect,
      [],
    )
    .option(
      "--timeout <ms>",
      "bound on a server's start-up and each tools/list page",
      integer(1, "milliseconds (> 0)"),
      DEFAULT_UPSTREAM_TIMEOUT_MS,
    )
    .option(
      "--catalog-ttl <seconds>",
      "how long a fetched tool catalog is reused before the server is asked again",
      integer(0, "seconds"),
      30,
    )
    .action(async (flags: DashboardFlags) => {
      const status = await dashboard(flags);
      if (status !== null) process.exit(status);
    });
}

function fail(code: "E_DASHBOARD_TOKEN" | "E_DASHBOARD_LISTEN", message: string, hint?: string): number {
  printError(errorText(code, message, hint));
  return EXIT_BAD_INPUT;
}

/** null once the dashboard is listening (it runs until a signal), else the exit status. */
async function dashboard(flags: DashboardFlags): Promise<number | null> {
  const token = flags.token ?? process.env["TOOLGATE_TOKEN"];
  if (token === undefined || token === "") {
    return fail(
      "E_DASHBOARD_TOKEN",
      "the dashboard needs a token to sign in with",
      "pass --token T or set $TOOLGATE_TOKEN",
    );
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    return fail(
      "E_DASHBOARD_TOKEN",
      `the dashboard's token must be at least ${MIN_TOKEN_LENGTH} characters long`,
      "generate one, e.g. `openssl rand -base64 24`",
    );
  }
  if (WILDCARD.includes(flags.host)) {
    return fail(
      "E_DASHBOARD_LISTEN",
      `${flags.host} is every address: the dashboard accepts only requests naming the address it listens on`,
      "pass the one address to serve on (e.g. --host 192.168.1.20), or keep the loopback default",
    );
  }
  const dir = resolveConfigDirPath(flags.configDir, process.env, homedir());
  // The directory is checked once at start, as every command checks it; pages load it afresh each time.
  const start = loadConfigDir(dir, { skills: [] });
  printDiagnostics(start.diagnostics);
  if (hasErrors(start.diagnostics)) {
    process.stderr.write(`toolgate: the configuration in ${dir} has errors (see above)\n`);
    return EXIT_BAD_INPUT;
  }
  const log = (line: string): void => void process.stderr.write(`toolgate: ${line}\n`);
  const fetchCatalog = catalogFetcher(flags.timeout, log);
  let running;
  try {
    running = await startDashboard({
      host: flags.host,
      port: flags.port,
      // The local dashboard's one operator: it shows, it answers nothing (no call waits here).
      signIn: (presented) =>
        secretsEqual(presented, token)
          ? { principal: localPrincipal("operator"), rights: LOCAL_OPERATOR_RIGHTS }
          : { refused: "That is not the dashboard's token." },
      dir,
      auditLogs: flags.auditLog,
      locatePolicy: (config) => policyLocation(config, flags.policy),
      catalogs: new CatalogCache(fetchCatalog, flags.catalogTtl * 1000),
      log,
    });
  } catch (error) {
    return fail(
      "E_DASHBOARD_LISTEN",
      `cannot listen on ${flags.host}:${flags.port}: ${error instanceof Error ? error.message : String(error)}`,
      "choose another --port (0 picks a free one)",
    );
  }
  log(`dashboard of ${dir} on ${running.url}`);
  if (!LOOPBACK.includes(flags.host)) {
    log(
      `${flags.host} is not a loopback address: anyone who can reach it can try the token, and the token and ` +
        `the session cookie cross the network in plain HTTP; put a TLS proxy in front of it`,
    );
  }
  const stop = (): void => void running.close().then(() => process.exit(0));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, stop);
  return null;
}
