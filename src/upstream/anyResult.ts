import type { StandardSchemaV1 } from "@modelcontextprotocol/client";

/**
 * A result schema that takes any result as it is. toolgate reads and checks what a server answers itself
 * (a catalog entry at a time, a forwarded answer passed on), so the SDK's own per-method validation would
 * only refuse whole answers for one odd member, and cost time on every call.
 */
export const ANY_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  "~standard": {
    version: 1,
    vendor: "toolgate",
    validate: (value) =>
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: "a result must be a JSON object" }] },
  },
};
