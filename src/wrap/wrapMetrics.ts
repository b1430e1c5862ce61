import { performance } from "node:perf_hooks";
import type { InboundFrame } from "../engine/rpc/frames.js";
import type { JsonRpcId, JsonRpcMessage } from "../engine/rpc/jsonRpc.js";
import type { GatewayMetrics, UpstreamWatch } from "../ops/gatewayMetrics.js";
import type { ProxyPeers } from "./policyProxy.js";
import type { FrameHandler } from "./stdioWrap.js";

/** Forwarded calls timed at once, at most: past it, a call is not timed (nothing is held for ever). */
const MAX_TIMED = 10_000;

/**
 * wrap's metrics (`--metrics-port`): its one server under the name the operator gave it (`--server`,
 * `--label`; the session counts its decisions under none), the server's time to answer each forwarded
 * call (timed between the frames: the proxy forwards and the answer comes back), and the server's state
 * (starting until it first speaks, up, failed once it exits or could not start).
 */
export class WrapMetrics {
  private readonly watch: UpstreamWatch;
  private readonly sent = new Map<JsonRpcId, number>();
  readonly named: GatewayMetrics;

  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly server: string,
  ) {
    this.watch = metrics.upstream(server);
    this.watch.state("starting");
    this.named = {
      decision: (verdict, code, s) => metrics.decision(verdict, code, s ?? server),
      gateTime: (s, seconds) => metrics.gateTime(s ?? server, seconds),
      upstreamTime: (s, seconds) => metrics.upstreamTime(s ?? server, seconds),
      upstream: (s) => metrics.upstream(s),
      session: (era) => metrics.session(era),
      stateStoreError: () => metrics.stateStoreError(),
      reload: (result) => metrics.reload(result),
      approvalsWaiting: (read) => metrics.approvalsWaiting(read),
    };
  }

  peers(peers: ProxyPeers): ProxyPeers {
    return {
      toServer: (message: JsonRpcMessage) => {
        const m = message as { method?: unknown; id?: JsonRpcId };
        if (m.method === "tools/call" && m.id !== undefined && this.sent.size < MAX_TIMED) {
          this.sent.set(m.id, performance.now());
        }
        peers.toServer(message);
      },
      toClient: (message: JsonRpcMessage) => {
        const m = message as { method?: unknown; id?: JsonRpcId };
        if (m.method === undefined && m.id !== undefined) {
          const at = this.sent.get(m.id);
          if (at !== undefined) {
            this.sent.delete(m.id);
            this.metrics.upstreamTime(this.server, (performance.now() - at) / 1000);
          }
        }
        peers.toClient(message);
      },
    };
  }

  handler(handler: FrameHandler): FrameHandler {
    let spoke = false;
    const metered: FrameHandler = {
      fromClient: (frame: InboundFrame) => handler.fromClient(frame),
      fromServer: (frame: InboundFrame) => {
        if (!spoke) {
          spoke = true;
          this.watch.state("up");
        }
        handler.fromServer(frame);
      },
      serverClosed: () => {
        this.watch.state("failed", "the server exited");
        handler.serverClosed();
      },
      idle: () => handler.idle(),
    };
    if (handler.clientClosed !== undefined) metered.clientClosed = () => handler.clientClosed!();
    if (handler.serverUnavailable !== undefined) {
      metered.serverUnavailable = (message) => {
        this.watch.state("failed", message);
        return handler.serverUnavailable!(message);
      };
    }
    return metered;
  }
}
