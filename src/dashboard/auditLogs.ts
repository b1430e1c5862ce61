import { closeSync } from "node:fs";
import { decodeUtf8, fileLines, openAuditForReading } from "../audit/auditFile.js";
import { verifyChain, type ChainReport } from "../audit/verifyChain.js";

/**
 * The audit logs the dashboard was started with (`--audit-log`, nothing else: a page never names a file):
 * each log's chain as `toolgate audit verify` checks it, and a search over their events. Files are streamed
 * line by line, as verify reads them, so a large log costs time but not memory; a search keeps at most
 * `limit` matches (the newest, since logs are append-only).
 */

export interface LogStatus {
  index: number;
  file: string;
  /** null when the file could not be read (then `error`). */
  report: ChainReport | null;
  error: { code: string; message: string } | null;
}

export function verifyLog(file: string, index: number): LogStatus {
  try {
    const fd = openAuditForReading(file);
    try {
      return { index, file, report: verifyChain(fileLines(fd)), error: null };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown };
    const code = typeof e.code === "string" && e.code.startsWith("E_") ? e.code : "E_AUDIT_READ";
    const message = typeof e.message === "string" ? e.message : String(error);
    return { index, file, report: null, error: { code, message } };
  }
}

export interface AuditQuery {
  /** One log by index, or null for all of them. */
  log: number | null;
  tool: string;
  code: string;
  client: string;
  /** Epoch milliseconds, inclusive. */
  from: number | null;
  /** Epoch milliseconds, exclusive. */
  to: number | null;
}

const TIME = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:\d{2})?$/i;

/**
 * An instant written as ISO 8601 (`2026-11-30`, `2026-11-30T01:09`, `…:38.024Z`, `…+02:00`); without a zone
 * it is UTC, the zone audit events are written in. A bare date as the end of a range means the end of that
 * day. null when the text is not such a time.
 */
export function parseTime(text: string, end: boolean): number | null {
  const m = TIME.exec(text.trim());
  if (m === null) return null;
  const t = Date.parse(`${m[1]}${m[2] ?? "T00:00:00"}${m[3] ?? "Z"}`);
  if (Number.isNaN(t)) return null;
  return end && m[2] === undefined ? t + 86_400_000 : t;
}

/** The query of a search form; what cannot be read is a problem to show, and no search is made. */
export function parseAuditQuery(
  params: URLSearchParams,
  logs: number,
): { query: AuditQuery; problems: string[] } {
  const problems: string[] = [];
  const time = (key: "from" | "to"): number | null => {
    const text = (params.get(key) ?? "").trim();
    if (text === "") return null;
    const t = parseTime(text, key === "to");
    if (t === null)
      problems.push(`'${text}' is not a time: write it as 2026-11-30T01:09:38Z (UTC when no zone)`);
    return t;
  };
  const logText = params.get("log") ?? "";
  let log: number | null = null;
  if (logText !== "") {
    const n = Number(logText);
    if (Number.isInteger(n) && n >= 0 && n < logs) log = n;
    else problems.push("no such log");
  }
  const query = {
    log,
    tool: (params.get("tool") ?? "").trim(),
    code: (params.get("code") ?? "").trim(),
    client: (params.get("client") ?? "").trim(),
    from: time("from"),
    to: time("to"),
  };
  return { query, problems };
}

export interface FoundEvent {
  log: number;
  /** 1-based line of the file. */
  line: number;
  event: Record<string, unknown>;
  /** Epoch milliseconds of `time`, NaN when absent or unreadable. */
  at: number;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function hiddenTools(event: Record<string, unknown>): Record<string, unknown>[] {
  const list = event["hidden_tools"];
  return Array.isArray(list)
    ? list.filter((h): h is Record<string, unknown> => typeof h === "object" && h !== null)
    : [];
}

/** Tool and code also match a `tools/list` event through the tools it hid (and a call's warning codes). */
export function eventMatches(event: Record<string, unknown>, at: number, q: AuditQuery): boolean {
  if (q.tool !== "") {
    const want = q.tool.toLowerCase();
    const names = [str(event["tool"]), ...hiddenTools(event).map((h) => str(h["tool"]))];
    if (!names.some((n) => n.toLowerCase().includes(want))) return false;
  }
  if (q.code !== "") {
    const want = q.code.toUpperCase();
    const warnings = Array.isArray(event["warnings"]) ? event["warnings"].map(str) : [];
    const codes = [str(event["code"]), ...hiddenTools(event).map((h) => str(h["code"])), ...warnings];
    if (!codes.some((c) => c.toUpperCase() === want)) return false;
  }
  if (q.client !== "" && !str(event["client"]).toLowerCase().includes(q.client.toLowerCase())) return false;
  if (q.from !== null && !(at >= q.from)) return false;
  if (q.to !== null && !(at < q.to)) return false;
  return true;
}

export interface SearchResult {
  /** Newest first, at most `limit`. */
  events: FoundEvent[];
  /** Every match, also those beyond the limit. */
  matched: number;
  /** Logs that could not be read, by index. */
  unreadable: number[];
}

export function searchEvents(files: readonly string[], q: AuditQuery, limit: number): SearchResult {
  let matched = 0;
  const unreadable: number[] = [];
  const found: FoundEvent[] = [];
  files.forEach((file, log) => {
    if (q.log !== null && q.log !== log) return;
    const kept: FoundEvent[] = [];
    try {
      const fd = openAuditForReading(file);
      try {
        for (const { number, bytes } of fileLines(fd)) {
          const text = decodeUtf8(bytes);
          if (text === null) continue;
          let event: unknown;
          try {
            event = JSON.parse(text);
          } catch {
            continue;
          }
          if (typeof event !== "object" || event === null || Array.isArray(event)) continue;
          const record = event as Record<string, unknown>;
          const at = Date.parse(str(record["time"]));
          if (!eventMatches(record, at, q)) continue;
          matched++;
          kept.push({ log, line: number, event: record, at });
          // The newest `limit` of this file are all a merge across files can need.
          if (kept.length > limit * 2) kept.splice(0, kept.length - limit);
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      unreadable.push(log);
    }
    found.push(...kept.slice(-limit));
  });
  found.sort(
    (a, b) =>
      (Number.isNaN(b.at) ? -Infinity : b.at) - (Number.isNaN(a.at) ? -Infinity : a.at) ||
      a.log - b.log ||
      b.line - a.line,
  );
  return { events: found.slice(0, limit), matched, unreadable };
}
