import type { FetchCatalog } from "../dashboard/catalogCache.js";
import { capabilityNames, connectUpstream } from "../upstream/upstream.js";
import { seenItems } from "./seenItems.js";
import { seenTools } from "./seenTools.js";

/**
 * How the dashboard's verdict matrix gets a server's catalog: as `toolgate info` does (the schema texts are
 * recorded, so exact pins judge what the gate judges), for `toolgate dashboard` and `serve --dashboard`;
 * with the server's resources, templates and prompts for a policy's resources:/prompts: sections.
 */
export function catalogFetcher(timeoutMs: number, log: (line: string) => void): FetchCatalog {
  return async (server, baseDir) => {
    const upstream = await connectUpstream(server, {
      baseDir,
      timeoutMs,
      startupTimeoutMs: timeoutMs,
      recordToolsListText: true,
    });
    try {
      const { names, seen } = await seenTools(upstream, server.name, log);
      // The cache serves every context and policy: the other lists are fetched whenever the server has them.
      let items = null;
      try {
        items = await seenItems(upstream, { resources: true, prompts: true }, timeoutMs);
      } catch (error) {
        log(
          `${server.name}: resources or prompts could not be listed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      return { capabilities: capabilityNames(upstream.capabilities), names, seen, items };
    } finally {
      await upstream.close();
    }
  };
}
