import type { ErrorObject } from "ajv";
import { escapePointerToken } from "../json/pointer.js";
import type { Violation } from "../model/decision.js";

/**
 * Ajv's errors as violations: a JSON pointer to the offending value and a message that reads after it.
 * Messages quote the schema (patterns, allowed values), never the argument values, which may be secrets.
 */
export function toViolations(errors: readonly ErrorObject[]): Violation[] {
  const namesWithOwnErrors = new Set<string>();
  for (const e of errors) {
    if (e.propertyName !== undefined && e.keyword !== "propertyNames") {
      namesWithOwnErrors.add(`${e.instancePath}/${escapePointerToken(e.propertyName)}`);
    }
  }
  const violations: Violation[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const v = toViolation(e);
    // propertyNames adds a summary after the errors of the name itself; the latter say more.
    if (e.keyword === "propertyNames" && namesWithOwnErrors.has(v.path)) continue;
    const key = `${v.path}\u0000${v.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(v);
  }
  return violations;
}

function toViolation(e: ErrorObject): Violation {
  const at = e.instancePath;
  const member = (name: unknown) => `${at}/${escapePointerToken(String(name))}`;
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return { path: member(params.missingProperty), message: "is a required property" };
    case "dependentRequired":
    case "dependencies":
      if (params.missingProperty !== undefined) {
        return {
          path: member(params.missingProperty),
          message: `is a required property when ${JSON.stringify(params.property)} is present`,
        };
      }
      break;
    case "additionalProperties":
      return {
        path: member(params.additionalProperty),
        message: "is not allowed (additionalProperties: false)",
      };
    case "unevaluatedProperties":
      return {
        path: member(params.unevaluatedProperty),
        message: "is not allowed (unevaluatedProperties: false)",
      };
    case "enum":
      return { path: at, message: `must be one of ${listValues(params.allowedValues)}` };
    case "const":
      return { path: at, message: `must be ${shorten(JSON.stringify(params.allowedValue) ?? "")}` };
    case "propertyNames":
      return { path: member(params.propertyName), message: "is not an allowed property name" };
  }
  if (e.propertyName !== undefined) {
    return { path: member(e.propertyName), message: `property name ${e.message ?? "is not valid"}` };
  }
  return { path: at, message: e.message ?? `fails "${e.keyword}"` };
}

function listValues(values: unknown): string {
  if (!Array.isArray(values)) return "the allowed values";
  return shorten(values.map((v) => JSON.stringify(v) ?? String(v)).join(", "));
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
