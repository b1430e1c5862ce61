import type { Era } from "../engine/protocol/eras.js";
import type { JsonObject } from "../engine/rpc/jsonRpc.js";
import type { ServerSlot } from "./toolRouter.js";

/** What serve offers its clients in each era (the modern era has no resource subscriptions). */
export function gatewayCapabilities(era: Era): JsonObject {
  return {
    tools: { listChanged: true },
    resources: era === "legacy" ? { subscribe: true, listChanged: true } : { listChanged: true },
    prompts: { listChanged: true },
    completions: {},
    logging: {},
  };
}

/** The client's roots changed: every legacy server connected now hears it (the modern era has no roots). */
export function relayRootsChanged(slots: Iterable<ServerSlot>): void {
  for (const slot of slots) {
    const upstream = slot.link.current;
    if (upstream !== null && upstream.client.getProtocolEra() !== "modern") {
      void upstream.client.sendRootsListChanged().catch(() => {});
    }
  }
}
