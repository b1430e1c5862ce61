import { isJsonObject } from "../engine/rpc/jsonRpc.js";
import { exposedResourceUri } from "./naming.js";

/**
 * Every resource URI a server hands the client is given in toolgate's form (`toolgate://<server>/<uri>`), so
 * the client can read it back through toolgate: listed resources and templates, read contents, and the
 * resource links and embedded resources inside tool results and prompt messages. Returns new objects; the
 * server's results are not modified. `structuredContent` is left alone (its shape is the tool's own).
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => isJsonObject(value);

function withUri(item: Json, key: "uri" | "uriTemplate", server: string): Json {
  const value = item[key];
  return typeof value === "string" ? { ...item, [key]: exposedResourceUri(server, value) } : item;
}

/** A content block: `resource_link` has a `uri`, `resource` embeds `{uri, …}`. */
export function rewriteContentBlock(block: unknown, server: string): unknown {
  if (!isObject(block)) return block;
  if (block.type === "resource_link") return withUri(block, "uri", server);
  if (block.type === "resource" && isObject(block.resource)) {
    return { ...block, resource: withUri(block.resource, "uri", server) };
  }
  return block;
}

function mapArray(result: Json, key: string, map: (item: unknown) => unknown): Json {
  const items = result[key];
  return Array.isArray(items) ? { ...result, [key]: items.map(map) } : result;
}

export function rewriteToolResult(result: Json, server: string): Json {
  return mapArray(result, "content", (block) => rewriteContentBlock(block, server));
}

export function rewritePromptResult(result: Json, server: string): Json {
  return mapArray(result, "messages", (message) =>
    isObject(message) ? { ...message, content: rewriteContentBlock(message.content, server) } : message,
  );
}

export function rewriteReadResult(result: Json, server: string): Json {
  return mapArray(result, "contents", (item) => (isObject(item) ? withUri(item, "uri", server) : item));
}

export function rewriteResourceList(items: unknown[], server: string): unknown[] {
  return items.map((item) => (isObject(item) ? withUri(item, "uri", server) : item));
}

export function rewriteTemplateList(items: unknown[], server: string): unknown[] {
  return items.map((item) => (isObject(item) ? withUri(item, "uriTemplate", server) : item));
}
