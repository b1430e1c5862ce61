import type { FetchCatalog } from "../dashboard/catalogCache.js";
import { capabilityNames, connectUpstream } from "../upstream/upstream.js";
import { seenTools } from "./seenTools.js";

/**
 * How the dashboard's verdict matrix gets a server's catalog: as `toolgate info` does (the schema texts are
 * recorded, so exact pins judge what the gate judges), for `toolgate dashboard` and `serve --dashboard`.
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
      return { capabilities: capabilityNames(upstream.capabilities), names, seen };
    } finally {
      await upstream.close();
    }
  };
}
