import type { McpServerConfig } from "../engine/model/mcpServers.js";
import type { Era } from "../engine/protocol/eras.js";
import type { HeaderBag } from "../engine/protocol/mirroredHeaders.js";
import type { JsonObject } from "../engine/rpc/jsonRpc.js";
import type { ApprovalOutcome } from "../session/approvalQuestion.js";
import type { ApprovalRounds } from "../session/approvalRounds.js";
import type { ServerView } from "../session/serverView.js";
import type { ToolSession } from "../session/toolSession.js";
import type { SecretScrubber } from "../upstream/serverSecrets.js";
import type { UpstreamLink } from "../upstream/upstreamLink.js";
import type { ServeMode } from "./serveMode.js";

/**
 * What serve's tool router works with: the session's servers (slots) and what the gateway session lends it
 * for one client request. Apart from the router so that its listing and its calls can share them.
 */

export type Json = Record<string, unknown>;

export interface ServerSlot {
  name: string;
  config: McpServerConfig;
  link: UpstreamLink;
  /** The server as the session decides about it (gate, audit name, realpath). */
  view: ServerView;
  /** Scrubs what the operator configured for reaching the server from what is relayed about it. */
  secrets: SecretScrubber;
}

/** What the router needs of one in-flight client request (the SDK's handler extra, opaque here). */
export type RequestHandle = unknown;

export interface RouterDeps {
  mode: ServeMode;
  slots: ReadonlyMap<string, ServerSlot>;
  order: readonly string[];
  session: ToolSession;
  forward(slot: ServerSlot, method: string, params: Json, request: RequestHandle): Promise<Json>;
  /** `null` when the person behind this request's client can be asked (form-mode elicitation); else why not. */
  cannotAsk(request: RequestHandle): string | null;
  /** Puts an approval question to the client's person (MCP elicitation) while the call waits (legacy). */
  askApproval(
    question: JsonObject,
    request: RequestHandle,
    about: { tool: string; server: string | null },
  ): Promise<ApprovalOutcome>;
  /** The person is asked out of band (the dashboard): the call waits in this request, in either era. */
  asksOutOfBand(request: RequestHandle): boolean;
  /** The era the request speaks. */
  eraOf(request: RequestHandle): Era;
  /** A modern HTTP request's headers (mirroring parts of the body), else `undefined`. */
  headersOf(request: RequestHandle): HeaderBag | undefined;
  /** How long a tools/list waits for a server still starting before it answers without it. */
  listWaitMs: number;
  /** A tools/list answered without `server`, still starting: the client is to hear when it is up. */
  listedWithout(server: string): void;
  /** What the client was shown of a server's tools (direct mode's tools/list). */
  listed?(server: string, shown: readonly unknown[]): void;
  /** Approval in the modern era: toolgate's `input_required` question and the state of its retries. */
  rounds: ApprovalRounds;
  log(line: string): void;
}
