import type { ScopeContract } from "../model/policy.js";
import type { Violation, RealpathHook } from "../model/decision.js";
import { findTargets, isPlainObject, type ArgumentTarget } from "./argumentTargets.js";
import { containedBySegment, pathShape, pathVariants, shapeText, type PathShape } from "./pathForm.js";
import { resourceForm, resourceMatches } from "./resourceForm.js";

/**
 * `restrict_scope`: does every path (or resource) this call names stay inside the contract's scope?
 *
 * - `path_prefix`: every path-like argument (argumentTargets.ts) is read as pathForm.ts describes and
 *   contained BY SEGMENT: `prefix` admits the scope directory itself and anything below it, never a sibling
 *   that merely starts with the same letters (`/workspace_evil`); `exact` admits only the scope path itself.
 *   With `realpath: true` the caller's resolver is applied as well (see RealpathHook); both the written
 *   and the resolved path must be inside.
 * - `resource`: every resource-like argument (`uri`, `url`, `resource`, …), read as resourceForm.ts
 *   describes, matched `exact` / `prefix` (at a boundary) / `contains`.
 * - `tool`: the tool's own name matched `exact` / `prefix` / `contains` against the scope value (a scope on
 *   which tools a `restrict_scope` entry may reach, e.g. `fs_` for every `fs_*` tool it names).
 *
 * A call with no argument to check, or one holding something other than a string, is a violation: a scope
 * toolgate cannot show is kept must not pass.
 */

export type ScopeContractInput = Pick<
  ScopeContract,
  "scopeType" | "scopeValue" | "scopeMatchMode" | "pathArguments" | "realpath"
> & { scopeValues?: readonly string[] };

export interface ScopeEvaluation {
  violations: Violation[];
  /** JSON pointers of the arguments that were checked (`""` for a tool-name scope). */
  checked: string[];
}

export function checkScope(
  contract: ScopeContractInput,
  tool: string,
  args: unknown,
  inputSchema?: unknown,
  realpath?: RealpathHook,
): Violation[] {
  return evaluateScope(contract, tool, args, inputSchema, realpath).violations;
}

export function evaluateScope(
  contract: ScopeContractInput,
  tool: string,
  args: unknown,
  inputSchema?: unknown,
  realpath?: RealpathHook,
): ScopeEvaluation {
  if (contract.scopeType === "tool") return toolScope(contract, tool);
  if (!isPlainObject(args)) {
    return {
      violations: [{ path: "", message: "arguments must be an object to check their scope" }],
      checked: [],
    };
  }
  return contract.scopeType === "path_prefix"
    ? pathScope(contract, args, inputSchema, realpath)
    : resourceScope(contract, args, inputSchema);
}

function toolScope(contract: ScopeContractInput, tool: string): ScopeEvaluation {
  const v = contract.scopeValue;
  const ok =
    contract.scopeMatchMode === "exact"
      ? tool === v
      : contract.scopeMatchMode === "prefix"
        ? tool.startsWith(v)
        : tool.includes(v);
  const violations = ok
    ? []
    : [{ path: "", message: `tool '${tool}' is outside the tool scope (${contract.scopeMatchMode} '${v}')` }];
  return { violations, checked: [""] };
}

function pathScope(
  contract: ScopeContractInput,
  args: Record<string, unknown>,
  inputSchema: unknown,
  realpath: RealpathHook | undefined,
): ScopeEvaluation {
  const mode = contract.scopeMatchMode;
  if (mode !== "prefix" && mode !== "exact") {
    return fail("", `scope_match_mode '${mode}' cannot contain paths; use 'prefix' or 'exact'`);
  }
  // Several roots (a list in scope_value): a path is in scope when it is inside any of them.
  const values = contract.scopeValues ?? [contract.scopeValue];
  const scopes: PathShape[] = [];
  for (const value of values) {
    const scope = pathShape(value);
    if (!scope.ok) return fail("", `the scope value '${value}' ${scope.reason}`);
    scopes.push(scope.shape);
  }
  const targets = findTargets(args, "path", contract.pathArguments, inputSchema);
  if (targets.length === 0) {
    return fail(
      "",
      "no path argument found to check against the scope (name it in restrict_scope_contract.path_arguments)",
    );
  }
  const exact = mode === "exact";
  const scopeLabel = `${exact ? "exactly " : ""}${values.map((v) => `'${v}'`).join(" or ")}`;
  let resolvedScopes: { ok: true; shapes: PathShape[] } | { ok: false; reason: string } | undefined;
  const violations: Violation[] = [];

  for (const target of targets) {
    const problem = pathProblem(target, scopes, exact, scopeLabel);
    if (problem !== null) {
      violations.push({ path: target.pointer, message: problem });
      continue;
    }
    if (contract.realpath !== true) continue;
    if (realpath === undefined) {
      violations.push({
        path: target.pointer,
        message:
          "the scope requires resolving symbolic links (realpath: true) and this caller cannot resolve paths",
      });
      continue;
    }
    resolvedScopes ??= resolveScopes(scopes, values, realpath);
    if (!resolvedScopes.ok) {
      violations.push({ path: target.pointer, message: resolvedScopes.reason });
      continue;
    }
    const variants = pathVariants(target.value as string);
    if (!variants.ok) continue; // unreachable: pathProblem accepted it
    for (const form of variants.forms) {
      const resolved = resolveShape(form, realpath);
      if (!resolved.ok) {
        violations.push({ path: target.pointer, message: `${show(target.value)} ${resolved.reason}` });
        break;
      }
      if (!resolvedScopes.shapes.some((scope) => containedBySegment(resolved.shape, scope, exact))) {
        violations.push({
          path: target.pointer,
          message: `${show(target.value)} resolves to '${shapeText(resolved.shape)}', outside the scope ${scopeLabel}`,
        });
        break;
      }
    }
  }
  return { violations, checked: targets.map((t) => t.pointer) };
}

/**
 * The scopes with their links resolved. A root that cannot be resolved (removed since) contains nothing;
 * only when none can be is every path refused, with the first one's reason.
 */
function resolveScopes(
  scopes: readonly PathShape[],
  values: readonly string[],
  realpath: RealpathHook,
): { ok: true; shapes: PathShape[] } | { ok: false; reason: string } {
  const shapes: PathShape[] = [];
  let first: string | undefined;
  scopes.forEach((scope, i) => {
    const resolved = resolveShape(scope, realpath);
    if (resolved.ok) shapes.push(resolved.shape);
    else first ??= `the scope '${values[i]}' ${resolved.reason}`;
  });
  return shapes.length > 0 ? { ok: true, shapes } : { ok: false, reason: first! };
}

function pathProblem(
  target: ArgumentTarget,
  scopes: readonly PathShape[],
  exact: boolean,
  scopeLabel: string,
): string | null {
  if (typeof target.value !== "string") return `is not a path string (got ${typeName(target.value)})`;
  const variants = pathVariants(target.value);
  if (!variants.ok) return `${show(target.value)} ${variants.reason}`;
  for (let i = 0; i < variants.forms.length; i++) {
    const form = variants.forms[i]!;
    if (scopes.some((scope) => containedBySegment(form, scope, exact))) continue;
    if (form.root.startsWith("~") && scopes.every((scope) => form.root !== scope.root)) {
      return `${show(target.value)} starts with '${form.root}', which the server expands to a home directory outside the scope ${scopeLabel}`;
    }
    const as = i === 0 ? "" : ` once percent-decoded (${show(variants.text[i])})`;
    return `${show(target.value)}${as} is '${shapeText(form)}', outside the scope ${scopeLabel}`;
  }
  return null;
}

/** Resolves a path through the hook, walking up to the nearest existing ancestor. */
function resolveShape(
  shape: PathShape,
  realpath: RealpathHook,
): { ok: true; shape: PathShape } | { ok: false; reason: string } {
  const raw = shape.rawSegments;
  for (let k = raw.length; k >= 0; k--) {
    const candidate = shapeText({ root: shape.root, segments: raw.slice(0, k), rawSegments: [] });
    let resolved: string | null;
    try {
      resolved = realpath(candidate);
    } catch (e) {
      return { ok: false, reason: `cannot be resolved: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (resolved === null) continue;
    const tail = raw.slice(k);
    if (tail.includes("..")) {
      return { ok: false, reason: "cannot be resolved: '..' follows a directory that does not exist" };
    }
    const joined = pathShape(tail.length === 0 ? resolved : `${resolved}/${tail.join("/")}`);
    if (!joined.ok) return { ok: false, reason: `resolves to '${resolved}', which ${joined.reason}` };
    return joined;
  }
  return { ok: false, reason: "does not exist, nor does any directory above it" };
}

function resourceScope(
  contract: ScopeContractInput,
  args: Record<string, unknown>,
  inputSchema: unknown,
): ScopeEvaluation {
  const targets = findTargets(args, "resource", undefined, inputSchema);
  if (targets.length === 0)
    return fail("", "no resource argument (uri, url, resource, …) found to check against the scope");
  const violations: Violation[] = [];
  for (const target of targets) {
    if (typeof target.value !== "string") {
      violations.push({
        path: target.pointer,
        message: `is not a resource string (got ${typeName(target.value)})`,
      });
      continue;
    }
    const form = resourceForm(target.value);
    if (!form.ok) {
      violations.push({ path: target.pointer, message: `${show(target.value)} ${form.reason}` });
      continue;
    }
    if (!resourceMatches(target.value, form.text, contract.scopeValue, contract.scopeMatchMode)) {
      violations.push({
        path: target.pointer,
        message: `${show(target.value)} is outside the resource scope (${contract.scopeMatchMode} '${contract.scopeValue}')`,
      });
    }
  }
  return { violations, checked: targets.map((t) => t.pointer) };
}

function fail(path: string, message: string): ScopeEvaluation {
  return { violations: [{ path, message }], checked: [] };
}

function typeName(v: unknown): string {
  return v === null
    ? "null"
    : Array.isArray(v)
      ? "an array"
      : typeof v === "object"
        ? "an object"
        : `a ${typeof v}`;
}

/**
 * The value quoted for a message: JSON-escaped (NUL shows as \u0000) and whole. Never cut here: a value cut
 * before redaction would leave a piece of a secret that the redaction no longer recognises, so toolgate's
 * writers mask first and cut after (session/callRedaction.ts).
 */
export function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
