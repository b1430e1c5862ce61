import { isJsonObject } from "../engine/rpc/jsonRpc.js";
import { randomBytes } from "node:crypto";
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcResponse } from "../engine/rpc/jsonRpc.js";

/**
 * The answer a server gives to a call of a tool it does not have, learned by calling a random unused name
 * once (docs/design.md, two stages). toolgate answers hidden tools with it so a model cannot tell "hidden" from "absent".
 */
export interface UnknownToolAnswer {
  /** `learned`: measured on this server; `sdk-default`: the probe failed, the MCP SDK's answer is used. */
  source: "learned" | "sdk-default";
  /** The response for `tool`, with the id of the call it answers. */
  answer(id: JsonRpcId, tool: string): JsonRpcResponse;
}

export function probeToolName(): string {
  return `toolgate-probe-${randomBytes(8).toString("hex")}`;
}

/** From the server's answer to the probe: a result or an error, with the probe name as a placeholder. */
export function learnedUnknownToolAnswer(probeName: string, response: JsonRpcResponse): UnknownToolAnswer {
  const body: { result: unknown } | { error: JsonRpcErrorObject } =
    response.error !== undefined ? { error: response.error } : { result: response.result };
  return {
    source: "learned",
    answer(id, tool) {
      return { jsonrpc: "2.0", id, ...(substitute(body, probeName, tool) as typeof body) };
    },
  };
}

/** What servers built on the MCP SDK answer for a tool they do not have. */
export function sdkUnknownToolAnswer(): UnknownToolAnswer {
  return {
    source: "sdk-default",
    answer(id, tool) {
      return {
        jsonrpc: "2.0",
        id,
        result: {
          content: [{ type: "text", text: `MCP error -32602: Tool ${tool} not found` }],
          isError: true,
        },
      };
    },
  };
}

/** A deep copy with every occurrence of `from` inside strings (keys included) replaced by `to`. */
export function substitute(value: unknown, from: string, to: string): unknown {
  if (typeof value === "string") return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((item) => substitute(item, from, to));
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty, not assignment: a key named "__proto__" must stay a plain member.
      Object.defineProperty(out, key.split(from).join(to), {
        value: substitute(item, from, to),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
