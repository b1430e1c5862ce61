/**
 * "Did you mean" for a name nobody defined: the known name closest to it by edit distance (Levenshtein with
 * swapped neighbours as one edit, case ignored), when it is plausibly a typo of it. Used for unknown fields
 * and unknown server names alike. Pure.
 */

/** At most this many known names are compared (a file may define very many; each comparison is O(a·b)). */
const MAX_COMPARED = 10_000;
/** Names longer than this are not typos of anything worth suggesting. */
const MAX_LENGTH = 256;

/**
 * The known name closest to `word`, when the distance is at most max(2, ⌊length/4⌋) — 1 for a word of three
 * or four characters, 0 (a difference of case only) for one or two: every one-letter name is one edit from
 * every other; else undefined.
 */
export function closestName(word: string, known: Iterable<string>): string | undefined {
  if (word.length > MAX_LENGTH) return undefined;
  const lower = word.toLowerCase();
  const limit = word.length <= 2 ? 0 : word.length <= 4 ? 1 : Math.max(2, Math.floor(word.length / 4));
  let best: string | undefined;
  let bestDistance = Infinity;
  let compared = 0;
  for (const k of known) {
    if (++compared > MAX_COMPARED) break;
    // A length difference alone already exceeds the bound: no need to compute the distance.
    if (k === word || Math.abs(k.length - word.length) > limit) continue;
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`: optimal string alignment. */
export function editDistance(a: string, b: string): number {
  // Three rows: a swap looks two rows back.
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The hint for an unknown name: "did you mean 'fs'?" when one is close, then the names there are (`what`:
 * "configured servers"), at most 20 of them; `none` when there are none.
 */
export function unknownNameHint(word: string, known: readonly string[], what: string, none: string): string {
  if (known.length === 0) return none;
  const close = closestName(word, known);
  const shown = known.slice(0, 20).join(", ");
  const list = `${what}: ${shown}${known.length > 20 ? `, … (${known.length} in all)` : ""}`;
  return close === undefined ? list : `did you mean '${close}'? (${list})`;
}
