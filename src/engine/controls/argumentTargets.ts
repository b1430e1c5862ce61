import { JsonNumber } from "../json/jsonNumber.js";
import { escapePointerToken } from "../json/pointer.js";
import { isPathName, isResourceName } from "./argumentNames.js";

/**
 * Which argument values a scope check looks at.
 *
 * Explicit (`path_arguments` in the contract): each entry is a top-level argument name, or a JSON pointer
 * (starting with `/`) for anything deeper. Only those are checked; an absent one is skipped. This is the
 * escape hatch when the default picks up an argument that is not a path.
 *
 * Default: the union of
 * - from the tool's input schema (the server's, else the policy's): every property, at any depth under
 *   `properties` / `items` / `allOf` / `anyOf` / `oneOf`, whose name is path-like (resource-like for a
 *   `resource` scope; see argumentNames.ts) or whose schema has `format: uri | uri-reference | iri |
 *   iri-reference` (directly or as the `items` of an array);
 * - from the call itself: every member, at any depth, whose name is path-like (resource-like), so a member
 *   the schema does not declare is still covered.
 * A default target holding an object is descended into rather than checked; one holding an array yields
 * each element. A target holding anything but a string (a number, `null`, an object where it was named
 * explicitly) is reported by the caller as a violation: toolgate cannot show it is in scope.
 */

export type TargetKind = "path" | "resource";

export interface ArgumentTarget {
  /** JSON pointer into the arguments. */
  pointer: string;
  value: unknown;
}

const URI_FORMATS: ReadonlySet<string> = new Set(["uri", "uri-reference", "iri", "iri-reference"]);
const MAX_SCHEMA_DEPTH = 32;
const MAX_ARGS_DEPTH = 128;

/** Parses a JSON pointer into reference tokens; `null` when it is not one (RFC 6901). */
export function parsePointer(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split("/")) {
    if (/~[^01]|~$/.test(raw)) return null;
    tokens.push(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return tokens;
}

export function pointerOf(tokens: readonly string[]): string {
  let out = "";
  for (const t of tokens) out += `/${escapePointerToken(t)}`;
  return out;
}

export function findTargets(
  args: Record<string, unknown>,
  kind: TargetKind,
  explicit: readonly string[] | undefined,
  inputSchema: unknown,
): ArgumentTarget[] {
  const found = new Map<string, unknown>();
  if (explicit !== undefined) {
    for (const entry of explicit) {
      const tokens = entry.startsWith("/") ? parsePointer(entry) : [entry];
      if (tokens === null) continue;
      const hit = resolve(args, tokens);
      if (hit.found) addLeaves(found, tokens, hit.value, false);
    }
    return toList(found);
  }
  const nameMatches = kind === "path" ? isPathName : isResourceName;
  for (const template of schemaTemplates(inputSchema, nameMatches)) {
    expandTemplate(args, template, 0, [], found);
  }
  walkNames(args, [], nameMatches, found, 0);
  return toList(found);
}

function toList(found: Map<string, unknown>): ArgumentTarget[] {
  return [...found].map(([pointer, value]) => ({ pointer, value }));
}

/** Adds a target, or each element of an array target. Objects are descended into only by the default rule. */
function addLeaves(found: Map<string, unknown>, tokens: string[], value: unknown, byDefault: boolean): void {
  if (Array.isArray(value)) {
    value.forEach((el, i) => {
      const at = [...tokens, String(i)];
      if (byDefault && isPlainObject(el)) return;
      found.set(pointerOf(at), el);
    });
    return;
  }
  if (byDefault && isPlainObject(value)) return;
  found.set(pointerOf(tokens), value);
}

function walkNames(
  value: unknown,
  tokens: string[],
  nameMatches: (n: string) => boolean,
  found: Map<string, unknown>,
  depth: number,
): void {
  if (depth > MAX_ARGS_DEPTH) return;
  if (Array.isArray(value)) {
    value.forEach((el, i) => walkNames(el, [...tokens, String(i)], nameMatches, found, depth + 1));
    return;
  }
  if (!isPlainObject(value)) return;
  for (const name of Object.keys(value)) {
    const member = value[name];
    const at = [...tokens, name];
    if (nameMatches(name)) addLeaves(found, at, member, true);
    walkNames(member, at, nameMatches, found, depth + 1);
  }
}

/** Pointer templates (`*` = every array index) of schema properties that hold paths/resources. */
function schemaTemplates(schema: unknown, nameMatches: (n: string) => boolean): string[][] {
  const out: string[][] = [];
  const walk = (s: unknown, prefix: string[], depth: number): void => {
    if (!isPlainObject(s) || depth > MAX_SCHEMA_DEPTH) return;
    for (const combinator of ["allOf", "anyOf", "oneOf"]) {
      const branches = s[combinator];
      if (Array.isArray(branches)) for (const b of branches) walk(b, prefix, depth + 1);
    }
    if (isPlainObject(s.items)) walk(s.items, [...prefix, "*"], depth + 1);
    const props = s.properties;
    if (!isPlainObject(props)) return;
    for (const name of Object.keys(props)) {
      const sub = props[name];
      const at = [...prefix, name];
      if (nameMatches(name) || hasUriFormat(sub) || (isPlainObject(sub) && hasUriFormat(sub.items))) {
        out.push(at);
      }
      walk(sub, at, depth + 1);
    }
  };
  walk(schema, [], 0);
  return out;
}

function hasUriFormat(s: unknown): boolean {
  return isPlainObject(s) && typeof s.format === "string" && URI_FORMATS.has(s.format);
}

function expandTemplate(
  value: unknown,
  template: readonly string[],
  i: number,
  tokens: string[],
  found: Map<string, unknown>,
): void {
  if (i === template.length) {
    addLeaves(found, tokens, value, true);
    return;
  }
  const t = template[i]!;
  if (t === "*") {
    if (Array.isArray(value))
      value.forEach((el, j) => expandTemplate(el, template, i + 1, [...tokens, String(j)], found));
    return;
  }
  if (isPlainObject(value) && Object.hasOwn(value, t)) {
    expandTemplate(value[t], template, i + 1, [...tokens, t], found);
  }
}

export function resolve(value: unknown, tokens: readonly string[]): { found: boolean; value: unknown } {
  let cur: unknown = value;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(t) || Number(t) >= cur.length) return { found: false, value: undefined };
      cur = cur[Number(t)];
    } else if (isPlainObject(cur) && Object.hasOwn(cur, t)) {
      cur = cur[t];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: true, value: cur };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}
