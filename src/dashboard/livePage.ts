import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuditEvent } from "../audit/events.js";
import type { LiveFeed } from "../audit/liveFeed.js";
import { markup, type SafeHtml } from "./html.js";
import { digestCode } from "./digest.js";
import { countsHtml, hiddenBy, liveKind, recentEvents } from "./liveCounts.js";
import { SECURITY_HEADERS } from "./respond.js";

/**
 * /ui/live: decisions as they happen (serve --http --dashboard). The page lists the last decisions, server
 * rendered; a small script of the same origin (the CSP allows no other) follows the SSE stream
 * /ui/live/events and adds each new one, built with textContent only (a name can never become markup), and
 * keeps the counts of allow, deny and hidden of the last five minutes as bars, starting from the counts of
 * the events the page was made with (liveCounts.ts). The events are the audit log's: argument digests or
 * what redaction leaves, never the arguments.
 */

interface Filter {
  tool: string;
  code: string;
  client: string;
}

function filterOf(params: URLSearchParams): Filter {
  return {
    tool: params.get("tool") ?? "",
    code: params.get("code") ?? "",
    client: params.get("client") ?? "",
  };
}

function outcome(event: AuditEvent): string {
  if (event.event === "tools/call") return event.decision;
  if (event.event === "request") return event.decision;
  if (event.event === "config_reload") return `reload ${event.result}`;
  if (event.event === "checkpoint") return `checkpoint ${event.trigger}`;
  return event.decision;
}

/** What an event is about: the tool, the refused request's method, the resource or prompt, or the list. */
function subject(event: AuditEvent): string {
  if (event.event === "tools/call") return event.tool;
  if (event.event === "request") return event.method;
  if (event.event === "resource" || event.event === "prompt") return event.name;
  return event.event;
}

function matches(event: AuditEvent, f: Filter): boolean {
  const tool = subject(event);
  const code = "code" in event ? (event.code ?? "") : "";
  return (
    (f.tool === "" || tool.includes(f.tool)) &&
    (f.code === "" || code === f.code) &&
    (f.client === "" || (event.client ?? "").includes(f.client))
  );
}

const COLUMNS = ["time", "server", "tool", "client", "verdict", "code", "rule", "args"] as const;

/** What one row shows, the same on the page and in the stream. */
export function liveRow(event: AuditEvent): Record<string, string> {
  return {
    time: event.time,
    server: event.server ?? "",
    tool: subject(event),
    client: event.client ?? "",
    verdict: outcome(event),
    code: "code" in event ? (event.code ?? "") : "",
    rule:
      "rule" in event && event.rule !== null && event.rule !== undefined
        ? `${event.rule.kind} ${event.rule.value}`
        : "",
    args: event.event === "tools/call" ? (event.args_sha256 ?? "") : "",
    kind: liveKind(event),
    hid: String(hiddenBy(event)),
  };
}

/** A cell: the arguments' digest shortened, whole in its title and in a click's selection (digest.ts). */
function cell(column: (typeof COLUMNS)[number], value: string): SafeHtml {
  if (column === "args" && value !== "") return markup`<td>${digestCode(value)}</td>`;
  return markup`<td>${value}</td>`;
}

export function liveBody(feed: LiveFeed | undefined, params: URLSearchParams): SafeHtml {
  if (feed === undefined) {
    return markup`<p class="banner">Live decisions are shown by <code>toolgate serve --http --dashboard</code>, which makes them.</p>`;
  }
  const f = filterOf(params);
  const matching = feed.last().filter((e) => matches(e, f));
  const rows = [...matching].reverse().slice(0, 200).map(liveRow);
  return markup`<form method="get" action="/ui/live" class="filters">
      <label>Tool <input name="tool" value="${f.tool}" /></label>
      <label>Code <input name="code" value="${f.code}" /></label>
      <label>Client <input name="client" value="${f.client}" /></label>
      <button type="submit">Filter</button>
    </form>
    ${countsHtml(recentEvents(matching, Date.now()))}
    <table class="live" id="live" data-query="${params.toString()}">
      <thead><tr>${COLUMNS.map((c) => markup`<th>${c}</th>`)}</tr></thead>
      <tbody>${rows.map((r) => markup`<tr class="${`verdict-${r.verdict}`}">${COLUMNS.map((c) => cell(c, r[c]!))}</tr>`)}</tbody>
    </table>
    <script src="/ui/static/live.js"></script>`;
}

/**
 * The SSE stream of new decisions matching the page's filter; a comment every 15 s keeps it open. It lasts
 * as long as the dashboard session that opened it: `session.onEnd` closes it at sign-out, and each
 * heartbeat first asks whether the session is still live (an expired one ends the stream).
 */
export function liveEvents(
  feed: LiveFeed | undefined,
  params: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
  session: { onEnd: Set<() => void>; live: () => boolean },
): void {
  if (feed === undefined) {
    res.writeHead(404, SECURITY_HEADERS).end();
    return;
  }
  const f = filterOf(params);
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-store",
    Connection: "keep-alive",
  });
  res.write(": live\n\n");
  const unsubscribe = feed.subscribe((event) => {
    if (matches(event, f)) res.write(`data: ${JSON.stringify(liveRow(event))}\n\n`);
  });
  const close = (): void => void res.end();
  const beat = setInterval(() => {
    if (session.live()) res.write(": beat\n\n");
    else close();
  }, 15_000);
  session.onEnd.add(close);
  const end = (): void => {
    clearInterval(beat);
    unsubscribe();
    session.onEnd.delete(close);
  };
  req.on("close", end);
  res.on("close", end);
}
