import { addExactKeywords } from "./exactNumbers.js";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { Options } from "ajv";
import formatsModule from "ajv-formats";
import type { Draft } from "./draft.js";

// ajv-formats is CommonJS; through Node's ESM interop its plugin is the `default` of the module object.
const addFormats = formatsModule.default;

type AjvInstance = Ajv | Ajv2020;

/**
 * Options for compiling a tool's argument schema. Never a `loadSchema`: nothing is ever fetched.
 * - strictSchema: an unknown keyword or format is a compile failure (in a security policy it is almost
 *   always a typo, and an ignored constraint admits what its author meant to refuse).
 * - strictTypes / strictTuples off: they reject ordinary schemas (union types, open tuples) that are valid.
 * - ownProperties: `required: ["toString"]` is not satisfied by a prototype's member.
 * - addUsedSchema off: a tool's `$id` is not registered, so tools cannot see or collide with each other.
 * - No defaults, coercion or property removal: validation never changes the arguments it checks.
 */
const COMPILE_OPTIONS: Options = {
  allErrors: true,
  strict: true,
  strictSchema: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  validateSchema: false, // done beforehand by the meta-schema validators below, for better messages
  addUsedSchema: false,
  ownProperties: true,
  useDefaults: false,
  coerceTypes: false,
  removeAdditional: false,
  $data: false,
  logger: false,
};

/** A fresh instance per tool schema: nothing one tool's schema does can reach another's. */
export function newCompiler(draft: Draft): AjvInstance {
  const ajv = draft === "2020-12" ? new Ajv2020(COMPILE_OPTIONS) : new Ajv(COMPILE_OPTIONS);
  addFormats(ajv);
  // Ajv resolves 2020-12 `$anchor`s but does not declare the keyword, so strict mode would reject it.
  if (draft === "2020-12") ajv.addKeyword({ keyword: "$anchor", schemaType: "string" });
  addExactKeywords(ajv);
  return ajv;
}

// Validating against a draft's meta-schema first compiles that meta-schema (tens of milliseconds), so one
// instance per draft is kept for the process. It only ever validates schemas as data; it never compiles
// or stores a policy's schema, so it holds no policy state.
const metaValidators = new Map<Draft, AjvInstance>();

export function metaValidator(draft: Draft): AjvInstance {
  let ajv = metaValidators.get(draft);
  if (ajv === undefined) {
    const options: Options = { allErrors: true, strict: false, logger: false };
    ajv = draft === "2020-12" ? new Ajv2020(options) : new Ajv(options);
    addFormats(ajv);
    metaValidators.set(draft, ajv);
  }
  return ajv;
}
