import type { JsonRpcId } from "./jsonRpc.js";

/**
 * What can be told about a frame that was refused (duplicate keys, nesting too deep, not JSON-RPC) without
 * accepting it: its top-level `id`, when that is one unambiguous string or number, and whether it names a
 * `method` (a request or notification) or not (a response). A refused request can then be answered under
 * its own id instead of leaving the sender to its timeout, and a refused response settles the request it
 * answers. Reading stops at nothing but the end of the text: no recursion, so any depth is fine.
 */
export interface FrameEnvelope {
  /** `null` when the frame is not an object, has no top-level `id`, or has more than one, or a non-scalar one. */
  id: JsonRpcId | null;
  hasMethod: boolean;
}

const NONE: FrameEnvelope = { id: null, hasMethod: false };

export function frameEnvelope(text: string): FrameEnvelope {
  let i = skipSpace(text, 0);
  if (text[i] !== "{") return NONE;
  let depth = 0;
  let ids = 0;
  let id: JsonRpcId | null = null;
  let hasMethod = false;
  /** At depth 1, the next string is a member name (after `{` or `,`). */
  let expectKey = false;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return NONE;
      if (depth === 1 && expectKey) {
        const name = parseString(text.slice(i, end + 1));
        const colon = skipSpace(text, end + 1);
        if (name === undefined || text[colon] !== ":") return NONE;
        if (name === "method") hasMethod = true;
        if (name === "id") {
          ids++;
          const value = scalarAt(text, skipSpace(text, colon + 1));
          id = value;
        }
        expectKey = false;
        i = colon;
        continue;
      }
      i = end;
      continue;
    }
    if (c === "{" || c === "[") {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === "}" || c === "]") {
      depth--;
    } else if (c === "," && depth === 1) {
      expectKey = true;
    }
  }
  return { id: ids === 1 ? id : null, hasMethod };
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
  return i;
}

/** Index of the closing quote of the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === '"') return i;
  }
  return -1;
}

function parseString(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A string or number literal starting at `at`; anything else (null, an object, bad text) is no id. */
function scalarAt(text: string, at: number): JsonRpcId | null {
  if (text[at] === '"') {
    const end = stringEnd(text, at);
    return end < 0 ? null : (parseString(text.slice(at, end + 1)) ?? null);
  }
  const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(at, at + 40));
  if (number === null) return null;
  const value = Number(number[0]);
  return Number.isFinite(value) ? value : null;
}
