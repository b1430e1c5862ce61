import { closeSync } from "node:fs";
import { fileLines, openAuditForReading } from "../audit/auditFile.js";
import { verifyChain } from "../audit/verifyChain.js";
import type { SessionCounters } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import { recordOf } from "./records.js";
import { nameVerdict, redecideCall } from "./redecide.js";
import { ReplayTally, type ReplayDiff } from "./tally.js";

/**
 * `toolgate replay`'s walk: each log read once, in chunks (fileLines: memory bounded by the longest line),
 * its hash chain verified with `toolgate audit verify`'s own code as the events stream past, and every
 * recorded call and list decided again under the candidate. A log whose chain does not hold refuses the
 * whole replay: nothing is reported from a log that may have been edited.
 */

/** The candidate's gate for a server of the logs (`null`: wrap's logs), or why there is none. */
export type GateFor = (server: string | null) => ToolGate | string;

export interface LogRead {
  file: string;
  events: number;
  head: string;
}

export type ReplayResult =
  | { ok: true; logs: LogRead[]; diff: ReplayDiff }
  /** `chain`: a log does not verify (refused); `input`: a log or an event replay cannot read. */
  | { ok: false; kind: "chain" | "input"; file: string; line: number; problem: string };

/** Thrown out of the walk to stop it at a line replay cannot use. */
class Stop extends Error {
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

export function replayLogs(files: readonly string[], gateFor: GateFor): ReplayResult {
  const tally = new ReplayTally();
  const gates = new Map<string | null, ToolGate>();
  const gate = (server: string | null, line: number): ToolGate => {
    let found = gates.get(server);
    if (found === undefined) {
      const made = gateFor(server);
      if (typeof made === "string") throw new Stop(line, made);
      gates.set(server, (found = made));
    }
    return found;
  };
  // Limits count per session, as the gateway counts them (approximately: only recorded requests count).
  const sessions = new Map<string, SessionCounters>();
  const logs: LogRead[] = [];
  for (const file of files) {
    const onEvent = (line: number, event: Record<string, unknown>): void => {
      const record = recordOf(event);
      if (record === null) return;
      if (typeof record === "string") throw new Stop(line, record);
      const counters = sessions.get(record.session) ?? { requests: 0, toolCalls: 0 };
      sessions.set(record.session, counters);
      const where = { server: record.server, principal: record.principal };
      if (record.kind === "list") {
        tally.list(
          where,
          record.hidden.map((h) => h.tool),
        );
        counters.requests++;
        return;
      }
      const now = redecideCall(gate(record.server, line), record, counters);
      tally.call({ ...where, tool: record.tool }, record, now);
      counters.requests++;
      counters.toolCalls++;
    };
    let fd: number;
    try {
      fd = openAuditForReading(file);
    } catch (error) {
      return { ok: false, kind: "input", file, line: 0, problem: (error as Error).message };
    }
    try {
      const report = verifyChain(fileLines(fd), onEvent);
      if (!report.ok) {
        const b = report.break;
        return { ok: false, kind: "chain", file, line: b.line, problem: `${b.kind}: ${b.message}` };
      }
      logs.push({ file, events: report.events, head: report.head });
    } catch (error) {
      if (error instanceof Stop)
        return { ok: false, kind: "input", file, line: error.line, problem: error.message };
      return { ok: false, kind: "input", file, line: 0, problem: (error as Error).message };
    } finally {
      closeSync(fd);
    }
  }
  const visible = (server: string | null, tool: string): boolean => {
    const found = gates.get(server) ?? gateFor(server);
    return typeof found !== "string" && nameVerdict(found, tool).outcome !== "hidden";
  };
  return { ok: true, logs, diff: tally.report(visible) };
}
