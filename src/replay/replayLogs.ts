import { closeSync, fstatSync } from "node:fs";
import { fileLines, openAuditForReading } from "../audit/auditFile.js";
import { verifyChainSteps } from "../audit/verifyChain.js";
import type { SessionCounters } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import { recordOf } from "./records.js";
import { ServerRedecider } from "./redecide.js";
import { ReplayTally, type ReplayDiff } from "./tally.js";

/**
 * `toolgate replay`'s walk: each log read once, in chunks (fileLines: memory bounded by the longest line),
 * its hash chain verified with `toolgate audit verify`'s own code as the events stream past, and every
 * recorded call and list decided again under the candidate. A log whose chain does not hold refuses the
 * whole replay: nothing is reported from a log that may have been edited. A log is read up to the size it
 * had when it was opened: lines a running gateway appends meanwhile are left for the next replay.
 *
 * The walk is a generator that pauses every few hundred lines: the CLI runs it through (replayLogs), the
 * dashboard in slices with the event loop let run between them (replayInSlices).
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

/** The whole replay at once (the CLI: nothing else waits on this process). */
export function replayLogs(files: readonly string[], gateFor: GateFor): ReplayResult {
  const steps = replaySteps(files, gateFor);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** Longest run of the walk between two turns of the event loop in {@link replayInSlices}. */
export const DEFAULT_SLICE_MS = 20;

/**
 * The same replay inside a server: run in slices of at most about `sliceMs` (a slice ends at the first
 * pause past it, a few hundred lines), the event loop let run between them, so requests and calls keep
 * being served while a large log is replayed.
 */
export async function replayInSlices(
  files: readonly string[],
  gateFor: GateFor,
  sliceMs = DEFAULT_SLICE_MS,
): Promise<ReplayResult> {
  const steps = replaySteps(files, gateFor);
  let until = performance.now() + sliceMs;
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() >= until) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      until = performance.now() + sliceMs;
    }
  }
}

/** The walk, pausing (a bare `yield`) every CHAIN_STEP_LINES lines. */
export function* replaySteps(
  files: readonly string[],
  gateFor: GateFor,
): Generator<void, ReplayResult, void> {
  const tally = new ReplayTally();
  const gates = new Map<string | null, ServerRedecider>();
  const gate = (server: string | null, line: number): ServerRedecider => {
    let found = gates.get(server);
    if (found === undefined) {
      const made = gateFor(server);
      if (typeof made === "string") throw new Stop(line, made);
      gates.set(server, (found = new ServerRedecider(made)));
    }
    return found;
  };
  // Limits count per session, as the gateway counts them (approximately: only recorded requests count).
  const sessions = new Map<string, SessionCounters>();
  const onEvent = (line: number, event: Record<string, unknown>): void => {
    const record = recordOf(event);
    if (record === null) return;
    if (typeof record === "string") throw new Stop(line, record);
    let counters = sessions.get(record.session);
    if (counters === undefined) sessions.set(record.session, (counters = { requests: 0, toolCalls: 0 }));
    if (record.kind === "list") {
      tally.list(
        { server: record.server, principal: record.principal },
        record.hidden.map((h) => h.tool),
      );
      counters.requests++;
      return;
    }
    const now = gate(record.server, line).call(record, counters);
    tally.call({ server: record.server, tool: record.tool, principal: record.principal }, record, now);
    counters.requests++;
    counters.toolCalls++;
  };
  const logs: LogRead[] = [];
  for (const file of files) {
    let fd: number;
    try {
      fd = openAuditForReading(file);
    } catch (error) {
      return { ok: false, kind: "input", file, line: 0, problem: (error as Error).message };
    }
    try {
      const report = yield* verifyChainSteps(fileLines(fd, fstatSync(fd).size), onEvent);
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
    let found: ServerRedecider | string | undefined = gates.get(server);
    if (found === undefined) {
      const made = gateFor(server);
      found = typeof made === "string" ? made : new ServerRedecider(made);
    }
    return typeof found !== "string" && found.nameVerdict(tool).outcome !== "hidden";
  };
  return { ok: true, logs, diff: tally.report(visible) };
}
