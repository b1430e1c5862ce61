import type { LogFields } from "../../engine/model/logFields.js";
import type { LogEntry, LogLevel } from "./logEntry.js";

/**
 * The code, level and subject of a line the layers below print through their `log(line)` callbacks, which
 * carry text only. Most lines name their code themselves (diagnostics, `error CODE: …`, `(E_…)`); the rest
 * are the gateway's own notices, matched by their fixed wording here, and any line not matched is
 * W_GATEWAY_NOTICE: every line has a code, and a new message without one shows up as that code, not as a
 * crash or a missing key.
 */
const CODE = /\b([EWI]_[A-Z][A-Z0-9_]+)\b/;

/** A formatted diagnostic: `file[:line:col]: error|warning CODE [field:] message`. */
const DIAGNOSTIC = /^(?:.+?): (error|warning) ([EW]_[A-Z][A-Z0-9_]+)\b/;

/** `error CODE: message` and `warning CODE: message` (errorReport.ts, serverNameWatch.ts). */
const LEVELLED = /^(error|warning) ([EW]_[A-Z][A-Z0-9_]+):? ([\s\S]*)$/;

/** A --verbose decision line: `tools/call NAME: allow|deny|hidden|would-… [CODE] — reason`. */
const DECISION =
  /^(tools\/call|tools\/list|resources\/read|resources\/list|prompts\/get|prompts\/list)(?: (?:tool|resource|prompt|template))? (\S+): (allow|deny|hidden|would-deny|would-hide|hide)\b/;

interface Notice {
  match: RegExp;
  level: LogLevel;
  code: string;
  /** Which capture group names the principal or the server, when one does. */
  principal?: number;
  server?: number;
}

/** The gateway's notices without a code in their text, by their fixed wording. */
const NOTICES: readonly Notice[] = [
  { match: /^session \S+ opened for (.+)$/, level: "info", code: "I_SESSION", principal: 1 },
  {
    match: /^session \S+ \((.+?)\) (?:closed|idle for|evicted)/,
    level: "info",
    code: "I_SESSION",
    principal: 1,
  },
  { match: /^serving (.+?) in protocol revision /, level: "info", code: "I_SESSION", principal: 1 },
  {
    match: /^refused a (?:request of|session for) (\S+):/,
    level: "warning",
    code: "W_GATEWAY_NOTICE",
    principal: 1,
  },
  { match: /^serving MCP \(/, level: "info", code: "I_SERVE_READY" },
  { match: /^dashboard on /, level: "info", code: "I_SERVE_READY" },
  { match: /^OAuth: access tokens of /, level: "info", code: "I_SERVE_READY" },
  { match: /^state in .*: limits, approvals and sessions are shared/, level: "info", code: "I_SERVE_READY" },
  { match: /^state .* is reachable again/, level: "info", code: "I_SERVE_READY" },
  { match: /^MCP server '(.+?)' is (?:up|connected again)/, level: "info", code: "I_UPSTREAM_UP", server: 1 },
  { match: /^MCP server '(.+?)' is down /, level: "warning", code: "W_UPSTREAM_DOWN", server: 1 },
  { match: /^tools\/list: MCP server '(.+?)' /, level: "warning", code: "W_UPSTREAM_DOWN", server: 1 },
  { match: /^dry run: /, level: "info", code: "I_DRY_RUN" },
  { match: /^OpenTelemetry: /, level: "warning", code: "W_TELEMETRY" },
  { match: /^(?:rejected|dropped) a (?:client|server) frame /, level: "error", code: "E_PROTOCOL" },
  {
    match: /^(?:refused a|dropped an answer|dropped notification|refused tools\/|refused \S+: )/,
    level: "error",
    code: "E_PROTOCOL",
  },
];

function levelOf(code: string): LogLevel {
  return code.startsWith("E_") ? "error" : code.startsWith("W_") ? "warning" : "info";
}

export function classifyLine(text: string, fields: LogFields): LogEntry {
  let line = text;
  const subject: LogFields = {};
  if (fields.server !== undefined) subject.server = fields.server;
  if (fields.tool !== undefined) subject.tool = fields.tool;
  if (fields.principal !== undefined) subject.principal = fields.principal;
  // What the caller knows wins over anything read from the text (a server's stderr may say anything).
  if (fields.code !== undefined) {
    return { level: levelOf(fields.code), code: fields.code, message: line, ...subject };
  }
  // `[server] …`: a line about one server of serve's (its catalog warnings).
  const prefixed = /^\[([^\]]+)\] ([\s\S]*)$/.exec(line);
  if (prefixed !== null) {
    subject.server ??= prefixed[1]!;
    line = prefixed[2]!;
  }
  const levelled = LEVELLED.exec(line);
  if (levelled !== null) {
    const [, level, code, rest] = levelled;
    const hint = /^([\s\S]*?)\n {2}hint: ([\s\S]*)$/.exec(rest!);
    return {
      level: level as LogLevel,
      code: code!,
      message: hint === null ? rest! : hint[1]!,
      ...(hint === null ? {} : { hint: hint[2]! }),
      ...subject,
    };
  }
  const diagnostic = DIAGNOSTIC.exec(line);
  if (diagnostic !== null) {
    return { level: diagnostic[1] as LogLevel, code: diagnostic[2]!, message: line, ...subject };
  }
  const decision = DECISION.exec(line);
  if (decision !== null) {
    subject.tool ??= decision[2]!;
    const named = CODE.exec(line.slice(decision[0].length));
    return { level: "info", code: named?.[1] ?? "I_DECISION", message: line, ...subject };
  }
  for (const notice of NOTICES) {
    const found = notice.match.exec(line);
    if (found === null) continue;
    if (notice.principal !== undefined) subject.principal ??= found[notice.principal]!;
    if (notice.server !== undefined) subject.server ??= found[notice.server]!;
    const named = CODE.exec(line);
    const code = named?.[1] ?? notice.code;
    return { level: named === null ? notice.level : levelOf(code), code, message: line, ...subject };
  }
  const named = CODE.exec(line);
  if (named !== null) return { level: levelOf(named[1]!), code: named[1]!, message: line, ...subject };
  return { level: "warning", code: "W_GATEWAY_NOTICE", message: line, ...subject };
}
