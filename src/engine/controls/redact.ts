import { isJsonNumeric, type JsonNumber } from "../json/jsonNumber.js";
import type { RedactContract } from "../model/policy.js";
import { canonicalJson } from "../pins/canonicalJson.js";
import { sha256Hex } from "../pins/hashes.js";
import { isSensitiveName } from "./argumentNames.js";
import { isPlainObject, parsePointer, pointerOf } from "./argumentTargets.js";

/**
 * `redact_args`: the copy of a call's arguments that toolgate may write down (audit log, stderr, console,
 * telemetry). Never what it forwards, and never a change to the input: every function here returns new
 * values and leaves its arguments as they were.
 *
 * Which values:
 * - `sensitive_fields`: every member, at any depth, whose name looks secret (argumentNames.ts:
 *   `password`, `api_key`, `Authorization`, `githubToken`, `AWS_SECRET_ACCESS_KEY`, …), plus `fields`.
 *   The member's whole value is redacted, whatever its type (an object under `credentials` goes as a whole).
 * - `all_fields`: every string and number leaf at any depth (member names, array lengths, booleans and
 *   `null` stay, so the record still shows the call's shape).
 * - `fields`: a name matches a member of that name (case-insensitive) at any depth; a JSON pointer (starting
 *   with `/`) matches exactly that place.
 *
 * How (`redaction_mode`):
 * - `mask`: the value becomes the string `"***"`, whatever its type (a type-preserving mask such as `0` for
 *   a number would read as a real value).
 * - `hash`: `"sha256:<hex>"` over the value's RFC 8785 form, so equal values can be correlated across
 *   records without being shown. A short or guessable secret can be found again by hashing guesses: use
 *   `mask` or `drop` for those.
 * - `drop`: the member is left out (an array element is removed).
 * - `partial`: strings (and numbers, as their decimal text) keep their last characters after `***` — at
 *   most 4, and at most a quarter of the value, so a short secret shows nothing (`***` alone). Other
 *   values are masked.
 */

export type RedactContractInput = Pick<RedactContract, "redactionMode" | "redactionScope" | "fields">;

export const MASK = "***";
/** Values shorter than this are not searched for in free text (redactText): they would match everywhere. */
export const MIN_SCRUB_LENGTH = 4;
const MAX_DEPTH = 256;
/** Marks a value that `drop` removes. */
const DROPPED = Symbol("dropped");

interface Selection {
  all: boolean;
  names: ReadonlySet<string>;
  pointers: ReadonlySet<string>;
}

export function redactArguments(contract: RedactContractInput, args: unknown): unknown {
  const sel = selection(contract);
  const out = walk(args, [], 0, sel, contract.redactionMode);
  return out === DROPPED ? undefined : out;
}

/**
 * Scrubs from a text (a server's error message, a log line) every value `redactArguments` would redact
 * from these arguments, as written and as it appears inside JSON text or a URL. `mask` and `drop` leave
 * `***`; `hash` and `partial` leave what they leave in the arguments. Values shorter than MIN_SCRUB_LENGTH
 * characters are not searched for.
 *
 * A value with path separators is also scrubbed piece by piece: texts about a path often show a form derived
 * from it rather than the value itself (a scope violation names the path normalized, percent-decoded or with
 * its links resolved), and each such form keeps the value's segments. So every segment of at least
 * MIN_SCRUB_LENGTH characters, as written and percent-decoded, is scrubbed too.
 */
export function redactText(contract: RedactContractInput, text: string, args: unknown): string {
  const replacements = new Map<string, string>();
  const mode = contract.redactionMode;
  for (const value of secretLeaves(args, selection(contract))) {
    const s = typeof value === "string" ? value : String(value);
    if (s.length < MIN_SCRUB_LENGTH || replacements.has(s)) continue;
    const replacement =
      mode === "hash" ? hashValue(value) : mode === "partial" ? String(partialValue(value)) : MASK;
    addSecretForms(replacements, s, replacement);
  }
  return replaceAll(text, replacements);
}

/**
 * Scrubs known secret values (a server's configured credentials, header values, URL query parameters) from
 * a text, as written, inside JSON text, URL-encoded and, for a value with separators, piece by piece, the
 * way redactText scrubs argument values. Values shorter than MIN_SCRUB_LENGTH are not searched for.
 */
export function scrubSecretValues(text: string, secrets: Iterable<string>): string {
  const replacements = new Map<string, string>();
  for (const secret of secrets)
    if (secret.length >= MIN_SCRUB_LENGTH) addSecretForms(replacements, secret, MASK);
  return replaceAll(text, replacements);
}

function addSecretForms(replacements: Map<string, string>, secret: string, replacement: string): void {
  for (const piece of [secret, ...pathPieces(secret)]) {
    for (const form of [piece, JSON.stringify(piece).slice(1, -1), encodeURIComponent(piece)]) {
      if (!replacements.has(form)) replacements.set(form, replacement);
    }
  }
}

function replaceAll(text: string, replacements: ReadonlyMap<string, string>): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const [secret, replacement] of [...replacements].sort((a, b) => b[0].length - a[0].length)) {
    if (out.includes(secret)) out = out.split(secret).join(replacement);
  }
  return out;
}

/** For a value with a separator: the value percent-decoded, and the segments (between slashes or backslashes) of both. */
function pathPieces(s: string): string[] {
  if (!/[/\\]/.test(s) && !/%2f|%5c/i.test(s)) return [];
  const decoded = percentDecoded(s);
  const pieces = new Set<string>([decoded]);
  for (const whole of [s, decoded]) {
    for (const segment of whole.split(/[/\\]+/)) {
      pieces.add(segment);
      pieces.add(percentDecoded(segment));
    }
  }
  pieces.delete(s);
  return [...pieces].filter((p) => p.length >= MIN_SCRUB_LENGTH);
}

function percentDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function selection(contract: RedactContractInput): Selection {
  const names = new Set<string>();
  const pointers = new Set<string>();
  for (const f of contract.fields ?? []) {
    if (f.startsWith("/")) {
      const tokens = parsePointer(f);
      if (tokens !== null) pointers.add(pointerOf(tokens));
    } else {
      names.add(f.toLowerCase());
    }
  }
  return { all: contract.redactionScope === "all_fields", names, pointers };
}

function selected(sel: Selection, name: string | null, tokens: readonly string[]): boolean {
  if (name !== null && (isSensitiveName(name) || sel.names.has(name.toLowerCase()))) return true;
  return sel.pointers.size > 0 && sel.pointers.has(pointerOf(tokens));
}

function walk(
  value: unknown,
  tokens: string[],
  depth: number,
  sel: Selection,
  mode: RedactContractInput["redactionMode"],
): unknown {
  if (depth > MAX_DEPTH) return MASK;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((el, i) => {
      const at = [...tokens, String(i)];
      const r = selected(sel, null, at) ? apply(el, mode) : walk(el, at, depth + 1, sel, mode);
      if (r !== DROPPED) out.push(r);
    });
    return out;
  }
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[name];
      if (member === undefined) continue;
      const at = [...tokens, name];
      const r =
        !sel.all && selected(sel, name, at) ? apply(member, mode) : walk(member, at, depth + 1, sel, mode);
      if (r !== DROPPED) setMember(out, name, r);
    }
    return out;
  }
  if (sel.all && (typeof value === "string" || isJsonNumeric(value))) return apply(value, mode);
  return value;
}

function apply(value: unknown, mode: RedactContractInput["redactionMode"]): unknown {
  switch (mode) {
    case "mask":
      return MASK;
    case "hash":
      return hashValue(value);
    case "drop":
      return DROPPED;
    case "partial":
      return partialValue(value);
  }
}

function hashValue(value: unknown): string {
  let text: string;
  try {
    text = canonicalJson(value, { exactNumbers: true });
  } catch {
    // No RFC 8785 form (an unpaired surrogate): still a digest, never the value.
    text = JSON.stringify(value) ?? String(value);
  }
  return `sha256:${sha256Hex(text)}`;
}

function partialValue(value: unknown): string {
  if (typeof value !== "string" && !isJsonNumeric(value)) return MASK;
  const chars = Array.from(String(value));
  const keep = Math.min(4, Math.floor(chars.length / 4));
  return keep === 0 ? MASK : MASK + chars.slice(chars.length - keep).join("");
}

/** The string and number leaves that redaction hides, for scrubbing free text. */
function secretLeaves(args: unknown, sel: Selection): (string | number | JsonNumber)[] {
  const out: (string | number | JsonNumber)[] = [];
  const collect = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof v === "string" || isJsonNumeric(v)) out.push(v);
    else if (Array.isArray(v)) for (const el of v) collect(el, depth + 1);
    else if (isPlainObject(v)) for (const m of Object.values(v)) collect(m, depth + 1);
  };
  const visit = (v: unknown, tokens: string[], depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(v)) {
      v.forEach((el, i) => {
        const at = [...tokens, String(i)];
        if (sel.all || selected(sel, null, at)) collect(el, depth + 1);
        else visit(el, at, depth + 1);
      });
    } else if (isPlainObject(v)) {
      for (const name of Object.keys(v)) {
        const at = [...tokens, name];
        const member = (v as Record<string, unknown>)[name];
        if (sel.all || selected(sel, name, at)) collect(member, depth + 1);
        else visit(member, at, depth + 1);
      }
    } else if (sel.all && (typeof v === "string" || isJsonNumeric(v))) {
      out.push(v);
    }
  };
  visit(args, [], 0);
  // Numbers are only secrets when a field was chosen; all_fields does not scrub every number from text.
  return sel.all ? out.filter((v) => typeof v === "string") : out;
}

/** Sets a member without letting a `__proto__` name change the prototype of the copy. */
function setMember(out: Record<string, unknown>, name: string, value: unknown): void {
  if (name === "__proto__") {
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  } else {
    out[name] = value;
  }
}
