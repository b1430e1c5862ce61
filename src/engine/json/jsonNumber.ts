import { randomBytes } from "node:crypto";

/**
 * A JSON number kept exactly as it was written, for the literals a double would change: an integer beyond
 * 2^53 (`9007199254740993`), a decimal with more digits than a double holds, an exponent form (`1e2`,
 * `1e400`), `-0`, `1.0`. toolgate parses every frame so (jsonWire.ts) and writes the literal back as it
 * came, so what it forwards is what the client (or the server) wrote: a ticket or chat ID past 2^53 reaches
 * the server as the same ID. Every other number stays a plain `number` (its literal is exactly what
 * `JSON.stringify` writes), so ordinary traffic pays nothing.
 *
 * Outside toolgate's own serializer (writeJson) the number behaves as its double (`toJSON`): a display or
 * a library that stringifies it gets the nearest double, never a sentinel or the object's fields.
 */
export class JsonNumber {
  constructor(readonly text: string) {}

  /** The nearest double (±Infinity past the double range, as `Number` gives it). */
  get value(): number {
    return Number(this.text);
  }

  toJSON(): unknown {
    return wireDepth > 0 ? `${SENTINEL}${this.text}` : finiteOrNull(this.value);
  }

  toString(): string {
    return this.text;
  }
}

function finiteOrNull(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

/** True when `JSON.stringify` writes this literal's double back as exactly this literal. */
export function isCanonicalLiteral(literal: string): boolean {
  return JSON.stringify(Number(literal)) === literal;
}

/** A literal as a value: a plain number when that loses nothing, else a JsonNumber. */
export function numberOf(literal: string): number | JsonNumber {
  return isCanonicalLiteral(literal) ? Number(literal) : new JsonNumber(literal);
}

/** A number of either kind as a double (for reading a count, a size, an id). */
export function doubleOf(value: number | JsonNumber): number {
  return typeof value === "number" ? value : value.value;
}

/** True for a plain number or a JsonNumber. */
export function isJsonNumeric(value: unknown): value is number | JsonNumber {
  return typeof value === "number" || value instanceof JsonNumber;
}

/** The literal a number is written as: a JsonNumber's own text, a double's JSON form. */
export function literalOf(value: number | JsonNumber): string {
  return typeof value === "number" ? JSON.stringify(value) : value.text;
}

// ---- Writing literals back ---------------------------------------------------------------------------------

/**
 * While toolgate's serializer runs, `toJSON` stands for the literal with a string no sender can produce: a
 * NUL and a random tag of this process (never shown: outside the serializer toJSON gives the double), which
 * the serializer then replaces with the literal itself. A sender's string holding a NUL is written
 * `"\u0000…"` too, so the tag's secrecy is what keeps a string from becoming a number; the serializer also
 * refuses a text in which a sentinel would survive.
 */
const TAG = randomBytes(12).toString("hex");
const SENTINEL = `\u0000tgn${TAG}:`;
/** The sentinel as JSON.stringify writes it, inside its quotes, followed by the literal. */
const WRITTEN = new RegExp(`"\\\\u0000tgn${TAG}:(-?[0-9][0-9.eE+-]*)"`, "g");
let wireDepth = 0;

/** Runs a serializer toolgate does not own (RFC 8785's) with JsonNumbers as sentinels; see writeJson. */
export function withLiterals(serialize: () => string): string {
  wireDepth++;
  let text: string;
  try {
    text = serialize();
  } finally {
    wireDepth--;
  }
  return restoreSentinels(text);
}

/**
 * JSON text of `value` with every JsonNumber written as its literal: the one serializer of what toolgate
 * sends (frames to clients and servers, the audit log, what a person is asked). Plain values take the
 * native path unchanged.
 */
export function writeJson(value: unknown, space?: number): string {
  wireDepth++;
  let text: string | undefined;
  try {
    text = space === undefined ? JSON.stringify(value) : JSON.stringify(value, null, space);
  } finally {
    wireDepth--;
  }
  if (text === undefined) return "null";
  return text.includes(TAG) ? restoreSentinels(text) : text;
}

/**
 * `value` with every JsonNumber replaced by its sentinel string, for a serializer toolgate does not run (the
 * SDK's HTTP client transports); {@link restoreSentinels} turns the text it wrote back into literals.
 */
export function withSentinels(value: unknown): unknown {
  if (value instanceof JsonNumber) return `${SENTINEL}${value.text}`;
  if (Array.isArray(value)) return value.map(withSentinels);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) defineMember(out, k, withSentinels(v));
    return out;
  }
  return value;
}

/**
 * A text another serializer wrote from {@link withSentinels}' value, with the literals written back. A tag
 * left anywhere else (inside a longer string) is refused: it can only be a sentinel written as text.
 */
export function restoreSentinels(text: string): string {
  if (!text.includes(TAG)) return text;
  const out = text.replace(WRITTEN, "$1");
  if (out.includes(TAG)) throw new Error("a number sentinel was written inside a string; refused");
  return out;
}

/** `value` with every sentinel string (see {@link sentinelsInText}) turned back into its JsonNumber. */
export function reviveSentinels(value: unknown): unknown {
  if (typeof value === "string") {
    return value.startsWith(SENTINEL) ? new JsonNumber(value.slice(SENTINEL.length)) : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = reviveSentinels(value[i]);
    return value;
  }
  if (typeof value === "object" && value !== null && !(value instanceof JsonNumber)) {
    const record = value as Record<string, unknown>;
    for (const k of Object.keys(record)) record[k] = reviveSentinels(record[k]);
  }
  return value;
}

/** JSON text with each of `spans` (number literals, as [start, end)) written as a sentinel string. */
export function sentinelsInText(text: string, spans: readonly (readonly [number, number])[]): string {
  if (spans.length === 0) return text;
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    out += `${text.slice(at, start)}${JSON.stringify(SENTINEL + text.slice(start, end))}`;
    at = end;
  }
  return out + text.slice(at);
}

function defineMember(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
