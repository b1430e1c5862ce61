import type { CatalogServer, PolicyCatalog } from "../../config/catalogFile.js";
import type { CatalogSnapshot } from "../../session/toolCatalog.js";

/**
 * The catalogs a self-test runs over: each server's read once, when a self-test first names it (at start,
 * before the gateway takes a client), and kept for the reloads after it, so a reload is tested over the
 * catalogs in hand instead of starting the servers again. wrap replaces its server's with each catalog its
 * proxy fetches (the current one).
 */
export class SelfTestCatalogs {
  private readonly held = new Map<string, CatalogServer>();

  /**
   * The held catalogs, after reading (with `read`) those of `named` not held yet; `read` throws what
   * readLiveCatalog throws for a server that does not start or cannot list its tools.
   */
  async get(
    named: readonly string[],
    read: (missing: readonly string[]) => Promise<PolicyCatalog>,
  ): Promise<PolicyCatalog> {
    const missing = named.filter((n) => !this.held.has(n));
    if (missing.length > 0) for (const [name, server] of await read(missing)) this.held.set(name, server);
    return new Map(this.held);
  }

  /** A catalog the gateway fetched itself (wrap's proxy): the next self-test runs over it. */
  fetched(name: string, snapshot: CatalogSnapshot): void {
    const tools = [...snapshot.tools.values()];
    const rawSchemas = new Map<string, string>();
    for (const t of tools) {
      const text = snapshot.exactSchemaText(t.name);
      if (text !== undefined) rawSchemas.set(t.name, text);
    }
    this.held.set(name, { tools, rawSchemas });
  }
}
