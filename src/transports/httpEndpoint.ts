import type { Principal } from "../engine/model/principal.js";
import type { Era } from "../engine/protocol/eras.js";
import type { JsonRpcId } from "../engine/rpc/jsonRpc.js";
import type { MessageTransport } from "./messageTransport.js";

/** What the endpoint needs of the protocol session it carries messages for (serve's GatewaySession). */
export interface McpSessionEndpoint {
  connect(transport: MessageTransport, options?: { era?: Era }): Promise<void>;
  /** Records a request refused for its protocol form (the audit log says why). */
  refused(method: string, id: JsonRpcId | null, error: { code: number; message: string }): void;
  close(): Promise<void>;
  onclose: (() => void) | undefined;
}

/** Who a request was admitted as: everything here that says "who" (sessions, quotas) keys on its principal. */
export interface HttpClientIdentity {
  principal: Principal;
}

/** The path of the Streamable HTTP endpoint. */
export const MCP_PATH = "/mcp";
