import { extractToolSchemaTexts } from "../engine/pins/exactHash.js";

/**
 * Each tool's inputSchema as the raw JSON text the server sent, cut from the texts of one catalog's
 * `tools/list` pages (what `exact_schema_hash` pins are checked against). Cut on first use: most policies
 * have no exact pins. A page whose text is missing or unreadable gives no texts (so exact pins on its tools
 * fail, closed); for a name listed on two pages the first page wins, as it does in the catalog.
 */
export class RawSchemaTexts {
  private texts: Map<string, string> | null = null;

  constructor(
    private readonly pageTexts: readonly (string | undefined)[],
    private readonly log: (line: string) => void,
  ) {}

  get(name: string): string | undefined {
    if (this.texts === null) {
      const texts = new Map<string, string>();
      for (const page of this.pageTexts) {
        if (page === undefined) continue;
        try {
          for (const [tool, text] of extractToolSchemaTexts(page))
            if (!texts.has(tool)) texts.set(tool, text);
        } catch (error) {
          this.log(
            `cannot read exact schema texts from a tools/list page: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      this.texts = texts;
    }
    return this.texts.get(name);
  }
}
