import { isJsonObject, type JsonObject } from "../engine/rpc/jsonRpc.js";

/**
 * Whether a client can be asked a form-mode question (MCP `elicitation/create`), read from the params of its
 * `initialize` request. MCP 2025-11-25: `capabilities.elicitation` declares support; `{}` (the older form)
 * means form mode; with `form` or `url` named explicitly, form mode only when `form` is among them.
 */
export function clientElicitsForms(initializeParams: JsonObject | undefined): boolean {
  const capabilities = initializeParams?.capabilities;
  if (!isJsonObject(capabilities)) return false;
  const elicitation = capabilities.elicitation;
  if (!isJsonObject(elicitation)) return false;
  const form = elicitation.form !== undefined;
  const url = elicitation.url !== undefined;
  return form || !url;
}
