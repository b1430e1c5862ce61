import { MIN_TOKEN_LENGTH } from "../config/tokensFile.js";
import type { ConfigDir } from "../engine/model/configDir.js";
import type { OpsFlags } from "./opsOptions.js";

/** Why the flags cannot be used, or `null` (checked before anything starts). */
export function opsFlagsProblem(flags: OpsFlags, http: boolean, config: ConfigDir): string | null {
  if (flags.metricsToken !== undefined && !http) return "--metrics-token applies to --http only";
  if (flags.metricsToken !== undefined && flags.metricsToken.length < MIN_TOKEN_LENGTH) {
    return `--metrics-token (or $TOOLGATE_METRICS_TOKEN) must be at least ${MIN_TOKEN_LENGTH} characters`;
  }
  if (flags.requireServer.length > 0 && !http && flags.metricsPort === undefined) {
    return "--require-server applies to /readyz: give --http or --metrics-port";
  }
  for (const name of flags.requireServer) {
    if (!config.mcp.servers.some((s) => s.name === name)) {
      const known = config.mcp.servers.map((s) => s.name).join(", ");
      return `--require-server ${name}: mcp.json has no server '${name}' (it has: ${known === "" ? "none" : known})`;
    }
  }
  return null;
}
