import { isJsonObject } from "../engine/rpc/jsonRpc.js";
import { doubleOf, isJsonNumeric } from "../engine/json/jsonNumber.js";
import type { ToolDefinition } from "../engine/model/gate.js";
import { metaToolName, type MetaToolKind } from "./naming.js";
import { SEARCH_TOP_K_DEFAULT, SEARCH_TOP_K_MAX, type SearchHit } from "./search.js";

/**
 * Meta-tool mode (the spec's client): per enabled server, `mcp_search_<server>` {query, top_k},
 * `mcp_describe_<server>` {tool} and `mcp_invoke_<server>` {tool, arguments}. Definitions, argument checks
 * and result shapes; what is visible is decided elsewhere (the session's gate). Pure.
 */

export type ToolResult = Record<string, unknown>;

export interface MetaToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export function metaToolDefinitions(server: string): MetaToolDefinition[] {
  return [
    {
      name: metaToolName("search", server),
      description:
        `Search the tools of the '${server}' MCP server by keywords in their names and descriptions. ` +
        `Returns the best matches first (name and description); describe a tool before invoking it.`,
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string", description: "keywords, e.g. 'read file'" },
          top_k: {
            type: "integer",
            minimum: 1,
            maximum: SEARCH_TOP_K_MAX,
            default: SEARCH_TOP_K_DEFAULT,
            description: `how many matches to return (1–${SEARCH_TOP_K_MAX}, default ${SEARCH_TOP_K_DEFAULT})`,
          },
        },
        required: ["query"],
        additionalProperties: false,
      },
    },
    {
      name: metaToolName("describe", server),
      description: `Describe one tool of the '${server}' MCP server: its description and input schema.`,
      inputSchema: {
        type: "object",
        properties: { tool: { type: "string", description: "the tool's name, as search returned it" } },
        required: ["tool"],
        additionalProperties: false,
      },
    },
    {
      name: metaToolName("invoke", server),
      description: `Call one tool of the '${server}' MCP server with arguments matching its input schema.`,
      inputSchema: {
        type: "object",
        properties: {
          tool: { type: "string", description: "the tool's name" },
          arguments: { type: "object", description: "the tool's arguments (see describe)" },
        },
        required: ["tool"],
        additionalProperties: false,
      },
    },
  ];
}

export type MetaArguments =
  | { kind: "search"; query: string; topK: number }
  | { kind: "describe"; tool: string }
  /** `arguments` as given (undefined when absent); the policy decides what it accepts. */
  | { kind: "invoke"; tool: string; arguments: unknown };

const ALLOWED_KEYS: Record<MetaToolKind, readonly string[]> = {
  search: ["query", "top_k"],
  describe: ["tool"],
  invoke: ["tool", "arguments"],
};

const isObject = (value: unknown): value is Record<string, unknown> => isJsonObject(value);

/** Checks a meta tool's arguments against its input schema; the message says what is wrong. */
export function readMetaArguments(
  kind: MetaToolKind,
  args: unknown,
): { ok: true; value: MetaArguments } | { ok: false; message: string } {
  const given = args === undefined ? {} : args;
  if (!isObject(given)) return { ok: false, message: "arguments must be an object" };
  for (const key of Object.keys(given)) {
    if (!ALLOWED_KEYS[kind].includes(key)) {
      return { ok: false, message: `unknown argument '${key}' (accepted: ${ALLOWED_KEYS[kind].join(", ")})` };
    }
  }
  if (kind === "search") {
    const query = given.query;
    if (typeof query !== "string") return { ok: false, message: "'query' must be a string" };
    const topK =
      given.top_k === undefined
        ? SEARCH_TOP_K_DEFAULT
        : isJsonNumeric(given.top_k)
          ? doubleOf(given.top_k)
          : given.top_k;
    if (typeof topK !== "number" || !Number.isInteger(topK) || topK < 1 || topK > SEARCH_TOP_K_MAX) {
      return { ok: false, message: `'top_k' must be an integer from 1 to ${SEARCH_TOP_K_MAX}` };
    }
    return { ok: true, value: { kind, query, topK } };
  }
  const tool = given.tool;
  if (typeof tool !== "string") return { ok: false, message: "'tool' must be a string" };
  if (kind === "describe") return { ok: true, value: { kind, tool } };
  const callArgs = given.arguments;
  if (callArgs !== undefined && !isObject(callArgs)) {
    return { ok: false, message: "'arguments' must be an object" };
  }
  return { ok: true, value: { kind, tool, arguments: callArgs } };
}

function textResult(text: string, isError: boolean, structured?: Record<string, unknown>): ToolResult {
  const result: ToolResult = { content: [{ type: "text", text }] };
  if (structured !== undefined) result.structuredContent = structured;
  if (isError) result.isError = true;
  return result;
}

/** The spec's answer for a tool that is hidden or does not exist, identical for both. */
export function notInCatalogResult(tool: string, server: string): ToolResult {
  return textResult(`${tool} not found in ${server} MCP server catalog`, true);
}

/** What an MCP SDK server answers for arguments that do not match a tool's input schema. */
export function invalidArgumentsResult(toolName: string, message: string): ToolResult {
  return textResult(
    `MCP error -32602: Input validation error: Invalid arguments for tool ${toolName}: ${message}`,
    true,
  );
}

export function searchResult(hits: readonly SearchHit[]): ToolResult {
  const tools = hits.map((h) => ({ name: h.name, description: h.description }));
  return textResult(JSON.stringify({ tools }), false, { tools });
}

export function describeResult(tool: ToolDefinition & Record<string, unknown>): ToolResult {
  const described: Record<string, unknown> = {
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema ?? { type: "object" },
  };
  if (tool.outputSchema !== undefined) described.outputSchema = tool.outputSchema;
  return textResult(JSON.stringify(described), false, described);
}
