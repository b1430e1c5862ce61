// The SDK's in-memory transport pair, the server side typed as toolgate's MessageTransport (the shapes
// agree; the SDK's types name its own message type).
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { MessageTransport } from "../../../src/transports/messageTransport.js";

export function linkedPair(): [InMemoryTransport, MessageTransport] {
  const [client, server] = InMemoryTransport.createLinkedPair();
  return [client, server as unknown as MessageTransport];
}
