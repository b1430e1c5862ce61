/**
 * The keyword ranking behind `mcp_search_<server>`. Deterministic and pure: the same catalog and query give
 * the same hits in the same order.
 *
 * Words: a text is cut at every character that is not a letter or digit and at lower→upper case changes
 * (`getFileInfo` → get, file, info), then lowercased. For each distinct query word, a tool scores:
 *   6 when the word is one of its name's words, else 4 when its name contains the word;
 *   2 when the word is one of its description's words, else 1 when its description contains the word.
 * A tool whose whole name equals the whole query (ignoring case) gets 10 more. Tools scoring 0 are left
 * out; the rest come best first, ties by name (code-unit order). A query without words matches every tool,
 * in name order.
 */

export interface SearchableTool {
  name: string;
  description?: string | undefined;
}

export interface SearchHit {
  name: string;
  description: string;
  score: number;
}

export const SEARCH_TOP_K_DEFAULT = 5;
export const SEARCH_TOP_K_MAX = 20;

export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "");
}

export function scoreTool(tool: SearchableTool, queryWords: readonly string[], query: string): number {
  const name = tool.name.toLowerCase();
  const nameWords = new Set(words(tool.name));
  const description = (tool.description ?? "").toLowerCase();
  const descriptionWords = new Set(words(tool.description ?? ""));
  let score = 0;
  for (const w of queryWords) {
    if (nameWords.has(w)) score += 6;
    else if (name.includes(w)) score += 4;
    if (descriptionWords.has(w)) score += 2;
    else if (description.includes(w)) score += 1;
  }
  const whole = query.trim().toLowerCase();
  if (whole !== "" && whole === name) score += 10;
  return score;
}

export function searchTools(tools: readonly SearchableTool[], query: string, topK: number): SearchHit[] {
  const queryWords = [...new Set(words(query))];
  const hits: SearchHit[] = [];
  for (const tool of tools) {
    const score = queryWords.length === 0 ? 0 : scoreTool(tool, queryWords, query);
    if (queryWords.length > 0 && score === 0) continue;
    hits.push({ name: tool.name, description: tool.description ?? "", score });
  }
  hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return hits.slice(0, Math.max(0, topK));
}
