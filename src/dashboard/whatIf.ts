import { loadConfigDir } from "../config/configDir.js";
import { loadPolicyText } from "../config/policyLoader.js";
import type { ContextSelection } from "../engine/model/configDir.js";
import { hasErrors, type Diagnostic } from "../engine/model/diagnostics.js";
import { compilePolicy } from "../engine/policy/compile.js";
import { candidateGates } from "../replay/candidateGates.js";
import { replayInSlices, type LogRead } from "../replay/replayLogs.js";
import type { ReplayDiff } from "../replay/tally.js";
import { readCandidate, type ChosenCandidate } from "./candidates.js";

/**
 * The what-if view's replay: the gateway's own audit logs decided again under a candidate policy of its
 * configuration directory, by `toolgate replay`'s code (replay/replayLogs.ts, with the directory's layers as
 * `replay --config-dir` takes them). Inside the gateway the walk runs in slices of about 20 ms with the event
 * loop let run between them (replayInSlices), and one replay at a time per dashboard: a second request while
 * one runs is refused (E_DASHBOARD_BUSY) rather than queued, so a page reloaded many times costs no more than
 * one replay.
 */

export type WhatIfOutcome =
  | { kind: "report"; candidate: string; digest: string; logs: LogRead[]; diff: ReplayDiff }
  /** The candidate, or the directory it is decided in, has errors: nothing is replayed (fail closed). */
  | { kind: "unusable"; what: "candidate" | "directory"; diagnostics: Diagnostic[] }
  /** `chain`: a log's chain does not hold (E_AUDIT_CHAIN); `input`: a log replay cannot read (E_REPLAY_INPUT). */
  | {
      kind: "refused";
      code: "E_AUDIT_CHAIN" | "E_REPLAY_INPUT";
      file: string;
      line: number;
      problem: string;
    };

export interface WhatIfRequest {
  dir: string;
  selection: ContextSelection;
  auditLogs: readonly string[];
  candidate: Extract<ChosenCandidate, { ok: true }>;
}

export class WhatIfRunner {
  private running = false;

  constructor(private readonly sliceMs?: number) {}

  /** The outcome, or `busy` while another replay of this dashboard runs. */
  async run(request: WhatIfRequest): Promise<WhatIfOutcome | "busy"> {
    if (this.running) return "busy";
    this.running = true;
    try {
      return await whatIf(request, this.sliceMs);
    } finally {
      this.running = false;
    }
  }
}

async function whatIf(request: WhatIfRequest, sliceMs: number | undefined): Promise<WhatIfOutcome> {
  const { dir, selection, candidate } = request;
  const { config, diagnostics } = loadConfigDir(dir, selection);
  if (hasErrors(diagnostics)) return { kind: "unusable", what: "directory", diagnostics };
  const text = readCandidate(candidate.path);
  if (typeof text !== "string") {
    const message = `${candidate.name} cannot be read now: ${text.why}`;
    const problem: Diagnostic = {
      severity: "error",
      code: "E_POLICY_READ",
      message,
      file: candidate.name,
      line: 0,
      column: 0,
      path: "",
    };
    return { kind: "unusable", what: "candidate", diagnostics: [problem] };
  }
  const loaded = loadPolicyText(candidate.name, text);
  if (loaded.policy === null) {
    return { kind: "unusable", what: "candidate", diagnostics: loaded.diagnostics };
  }
  const policy = { compiled: compilePolicy(loaded.policy), shownPath: candidate.name };
  const gates = candidateGates(policy, { config, selection });
  const result = await replayInSlices(request.auditLogs, gates, sliceMs);
  if (!result.ok) {
    return {
      kind: "refused",
      code: result.kind === "chain" ? "E_AUDIT_CHAIN" : "E_REPLAY_INPUT",
      file: result.file,
      line: result.line,
      problem: result.problem,
    };
  }
  return {
    kind: "report",
    candidate: candidate.name,
    digest: policy.compiled.policy.digest,
    logs: result.logs,
    diff: result.diff,
  };
}
