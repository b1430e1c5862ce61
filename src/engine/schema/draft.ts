/** The JSON Schema drafts toolgate validates with. 2020-12 is the default, as in the policy format. */
export type Draft = "2020-12" | "draft-07";

const DRAFT_BY_ID = new Map<string, Draft>([
  ["https://json-schema.org/draft/2020-12/schema", "2020-12"],
  ["https://json-schema.org/draft/2020-12/schema#", "2020-12"],
  ["http://json-schema.org/draft-07/schema#", "draft-07"],
  ["http://json-schema.org/draft-07/schema", "draft-07"],
]);

/** Which draft a schema's `$schema` names, or why it cannot be used. */
export function draftOf(schema: unknown): { ok: true; draft: Draft } | { ok: false; error: string } {
  if (typeof schema !== "object" || schema === null || !Object.hasOwn(schema, "$schema")) {
    return { ok: true, draft: "2020-12" };
  }
  const id = (schema as { $schema: unknown }).$schema;
  const draft = typeof id === "string" ? DRAFT_BY_ID.get(id) : undefined;
  if (draft !== undefined) return { ok: true, draft };
  return {
    ok: false,
    error:
      `unsupported $schema ${JSON.stringify(id)}: toolgate validates JSON Schema draft 2020-12 ` +
      `(the default, "https://json-schema.org/draft/2020-12/schema") and draft-07 ` +
      `("http://json-schema.org/draft-07/schema#")`,
  };
}
