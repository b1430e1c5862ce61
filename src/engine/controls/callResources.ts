import { findTargets, isPlainObject } from "./argumentTargets.js";
import { canonicalResource } from "./resourceForm.js";

/**
 * The resources a call names, for matching an approval artifact's `bound_resource`: the string values of
 * its path-like arguments (the contract's `path_arguments` when the tool is path-scoped, else the default
 * rule of argumentTargets.ts), of its resource-like arguments (`uri`, `url`, `resource`, …), and
 * `arguments._meta.resource` (where the reference gate reads the requested resource). Each in canonical
 * form (resourceForm.ts), without duplicates, in the order found.
 *
 * Every one of them must be approved: a `_meta.resource` naming an approved file does not cover a `path`
 * naming another.
 */
export function callResources(
  args: unknown,
  pathArguments?: readonly string[],
  inputSchema?: unknown,
): string[] {
  if (!isPlainObject(args)) return [];
  const out = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === "string") out.add(canonicalResource(v));
  };
  for (const t of findTargets(args, "path", pathArguments, inputSchema)) add(t.value);
  for (const t of findTargets(args, "resource", undefined, inputSchema)) add(t.value);
  if (isPlainObject(args._meta)) add(args._meta.resource);
  return [...out];
}
