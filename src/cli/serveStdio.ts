import { randomBytes } from "node:crypto";
import { closeAuditSink, type AuditSink } from "../audit/sink.js";
import type { GatewaySession } from "../serve/gatewaySession.js";
import { DrainableTransport } from "../transports/drainableTransport.js";
import { StrictStdioServerTransport } from "../transports/stdioServerTransport.js";
import { watchForReload } from "./reloadWatch.js";
import type { ClientContext } from "./serveFlags.js";
import { onStopSignals, type ServeLifecycle } from "./serveLifecycle.js";

/**
 * `serve --stdio`: one client on stdin/stdout, one session, reloaded on SIGHUP or a watched change, drained
 * on SIGTERM/SIGINT; resolves with the exit status once the client is gone.
 */
export async function serveStdio(
  client: ClientContext,
  newSession: (c: ClientContext, id: string) => GatewaySession,
  audit: AuditSink | null,
  maxFrameBytes: number,
  log: (line: string) => void,
  lifecycle: ServeLifecycle,
): Promise<number> {
  const session = newSession(client, randomBytes(8).toString("hex"));
  const closed = new Promise<void>((resolve) => (session.onclose = resolve));
  const transport = new DrainableTransport(
    new StrictStdioServerTransport(process.stdin, process.stdout, maxFrameBytes, log),
  );
  const watcher = watchForReload({
    paths: lifecycle.watch,
    log,
    reload: (t) => lifecycle.reload(t).then(() => {}),
  });
  onStopSignals(
    log,
    lifecycle.drainMs,
    (ms) => transport.drain(ms),
    () => session.close(),
  );
  await session.connect(transport);
  await closed;
  watcher.close();
  await closeAuditSink(audit);
  return 0;
}
