import type { PolicyCatalog, CatalogServer } from "../../config/catalogFile.js";
import type { ConfigDir } from "../../engine/model/configDir.js";
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from "../../upstream/upstream.js";
import { readLiveCatalog, targetFromConfig, type CatalogTarget } from "../pin/liveCatalog.js";

/**
 * Live catalogs for `catalog save` and `policy test`: each target started (or reached), listed page by
 * page as the gateway lists it (pin/liveCatalog.ts, with every inputSchema's raw text), and closed, one
 * after another. Throws what readLiveCatalog throws for the first server that cannot be read.
 */
export async function readCatalogs(
  targets: readonly CatalogTarget[],
  startupTimeoutMs: number,
): Promise<PolicyCatalog> {
  const out = new Map<string, CatalogServer>();
  for (const target of targets) {
    const live = await readLiveCatalog(target, DEFAULT_UPSTREAM_TIMEOUT_MS, startupTimeoutMs);
    out.set(target.name, { tools: live.listed, rawSchemas: live.rawSchemas });
  }
  return out;
}

/** Every server of the configuration directory (or the one named), as the gateway reaches it. */
export function configTargets(config: ConfigDir, only?: string): CatalogTarget[] {
  return config.mcp.servers
    .filter((s) => only === undefined || s.name === only)
    .map((s) => targetFromConfig(s, config.dir));
}
