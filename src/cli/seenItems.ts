import type { ItemCatalog } from "../engine/policy/itemViews.js";
import type { Upstream } from "../upstream/upstream.js";

/** Pages followed per list: a server that keeps handing out cursors is not followed for ever. */
const MAX_PAGES = 100;
const METHOD_NOT_FOUND = -32601;

/**
 * What a server offers besides tools, for the views (`info`, the dashboard's matrix): the URIs of its
 * resources, its resource templates and its prompt names, each list followed across its pages. A kind the
 * server does not declare is `null` (it is not asked). Fetched only when the policy has a section to judge
 * them by, so a policy without one starts no extra request.
 */
export async function seenItems(
  upstream: Upstream,
  wanted: { resources: boolean; prompts: boolean },
  timeoutMs: number,
): Promise<ItemCatalog> {
  const { client, capabilities } = upstream;
  const options = { timeout: timeoutMs };
  const offersResources = wanted.resources && capabilities.resources !== undefined;
  const offersPrompts = wanted.prompts && capabilities.prompts !== undefined;
  return {
    resources: offersResources
      ? await pages(async (cursor) => {
          const page = await client.listResources(cursor === undefined ? {} : { cursor }, options);
          return { names: page.resources.map((r) => r.uri), next: page.nextCursor };
        })
      : null,
    templates: offersResources
      ? await pages(async (cursor) => {
          const page = await client.listResourceTemplates(cursor === undefined ? {} : { cursor }, options);
          return { names: page.resourceTemplates.map((t) => t.uriTemplate), next: page.nextCursor };
        })
      : null,
    prompts: offersPrompts
      ? await pages(async (cursor) => {
          const page = await client.listPrompts(cursor === undefined ? {} : { cursor }, options);
          return { names: page.prompts.map((p) => p.name), next: page.nextCursor };
        })
      : null,
  };
}

async function pages(
  one: (cursor: string | undefined) => Promise<{ names: string[]; next: string | undefined }>,
): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    let page;
    try {
      page = await one(cursor);
    } catch (error) {
      // A server that declares resources without templates (or the other way round) has none to list.
      if (i === 0 && (error as { code?: unknown }).code === METHOD_NOT_FOUND) return [];
      throw error;
    }
    names.push(...page.names);
    cursor = page.next;
    if (cursor === undefined) break;
  }
  return names;
}
