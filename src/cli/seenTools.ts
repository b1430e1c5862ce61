import type { SeenTool } from "../engine/policy/explain.js";
import { RawSchemaTexts } from "../session/rawSchemaTexts.js";
import type { Upstream } from "../upstream/upstream.js";

/**
 * A server's live catalog for the verdict views (`info`, the console's `.info mcp-server`): the names, and
 * each definition with what the pin stage needs (the server's name as pins name it, the schema's raw text),
 * so the view withholds exactly what the gate withholds.
 */
export async function seenTools(
  upstream: Upstream,
  server: string,
  log: (line: string) => void,
): Promise<{ names: string[]; seen: Map<string, SeenTool> }> {
  const { tools, pageTexts } = await upstream.listToolCatalog();
  const texts = new RawSchemaTexts(pageTexts, log);
  const seen = new Map<string, SeenTool>();
  for (const tool of tools) {
    seen.set(tool.name, {
      definition: tool,
      context: { listed: true, serverId: server, exactSchemaText: () => texts.get(tool.name) },
    });
  }
  return { names: tools.map((t) => t.name), seen };
}
