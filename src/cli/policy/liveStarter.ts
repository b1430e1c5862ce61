import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_UPSTREAM_TIMEOUT_MS } from "../../upstream/upstream.js";
import { readLiveCatalog, type CatalogTarget, type LiveCatalog } from "../pin/liveCatalog.js";
import { defaultServerId } from "../pin/liveTarget.js";
import { pinCatalog } from "../pin/pinBlock.js";
import { serverRoots, type ServerRoot } from "./serverRoots.js";
import { starterPolicyYaml } from "./starterPolicy.js";

/**
 * The starter policy text for a live server: its catalog read once, pinned under the server id wrap will
 * match (the given one, else the server's own name), its path arguments scoped to the directories its
 * command names (serverRoots.ts), rendered by starterPolicy.ts. Throws what
 * readLiveCatalog throws when the server cannot be reached or read. Shared by `policy init` and `install`.
 */
export async function starterPolicyFromServer(
  target: CatalogTarget,
  serverId?: string,
  startupTimeoutMs: number = DEFAULT_STARTUP_TIMEOUT_MS,
): Promise<string> {
  return (await starterFromServer(target, serverId, startupTimeoutMs)).text;
}

/** The starter policy's text with the catalog it was made from and the roots it scopes paths to. */
export async function starterFromServer(
  target: CatalogTarget,
  serverId?: string,
  startupTimeoutMs: number = DEFAULT_STARTUP_TIMEOUT_MS,
): Promise<{ text: string; catalog: LiveCatalog; roots: ServerRoot[] }> {
  const catalog = await readLiveCatalog(target, DEFAULT_UPSTREAM_TIMEOUT_MS, startupTimeoutMs);
  const pins = pinCatalog(catalog.tools, catalog.rawSchemas, serverId ?? defaultServerId(catalog, target));
  const named = `${catalog.serverInfo.name} ${catalog.serverInfo.version}`.trim();
  const roots = serverRoots(target);
  const text = starterPolicyYaml({
    server: named === "" ? target.name : named,
    tools: catalog.tools,
    pins,
    roots,
  });
  return { text, catalog, roots };
}
