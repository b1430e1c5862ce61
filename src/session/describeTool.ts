import type { CallOutcome } from "../audit/events.js";
import type { Rule } from "../engine/model/decision.js";
import type { JsonRpcId } from "../engine/rpc/jsonRpc.js";
import { denyResult, type ToolResult } from "./answers.js";
import type { PipelineContext } from "./callPipeline.js";
import { hiddenByName } from "./callVerdict.js";
import type { ListedTool } from "./catalogPages.js";
import { catalogToolContext, type ServerView } from "./serverView.js";
import type { CatalogState } from "./toolCatalog.js";

export type DescribeStep =
  | { kind: "described"; tool: ListedTool }
  | { kind: "deny"; result: ToolResult }
  | { kind: "absent" }
  | { kind: "needs-catalog" };

export interface DescribeInput {
  requestId: JsonRpcId;
  server: ServerView;
  tool: string;
  catalog: CatalogState | null;
  via: string;
  args: unknown;
}

/**
 * Meta describe: the name stage alone; a visible tool's definition is then shown to the client (`shown`
 * is told, so a drifted tool it was shown is later explained). Every outcome is recorded.
 */
export function describeTool(
  pipeline: PipelineContext,
  input: DescribeInput,
  shown: () => void,
): DescribeStep {
  const { server, tool } = input;
  const record = (decision: CallOutcome, code: string | null, rule: Rule | null, reason: string): boolean =>
    pipeline.recorder.call({
      requestId: input.requestId,
      policyDigest: server.gate.policyDigest,
      server: server.name,
      tool,
      via: input.via,
      decision,
      code,
      rule,
      reason,
      warnings: [],
      args: input.args,
    });
  const byName = pipeline.dryRun ? null : hiddenByName(server.gate, tool);
  if (byName !== null && byName.kind === "hidden") {
    record("hidden", byName.code, byName.rule, byName.reason);
    return { kind: "absent" };
  }
  const catalog = input.catalog;
  if (catalog === null) return { kind: "needs-catalog" };
  if (!catalog.ok) {
    const code = catalog.code ?? "E_CATALOG_UNAVAILABLE";
    record("deny", code, null, catalog.reason);
    return {
      kind: "deny",
      result: denyResult({
        tool,
        code,
        reason: catalog.reason,
        violations: [],
        by: "toolgate",
      }),
    };
  }
  const definition = catalog.snapshot.tools.get(tool);
  if (definition === undefined) {
    record("hidden", null, null, `tool '${tool}' is not in the catalog of '${server.name ?? "the server"}'`);
    return { kind: "absent" };
  }
  const verdict = server.gate.visibility(definition, catalogToolContext(server, catalog.snapshot, tool));
  if (!verdict.visible && !pipeline.dryRun) {
    record("hidden", verdict.code, verdict.rule, verdict.reason);
    return { kind: "absent" };
  }
  const recorded = verdict.visible
    ? record("allow", null, null, "visible")
    : record("would-hide", verdict.code, verdict.rule, verdict.reason);
  if (!recorded) {
    return {
      kind: "deny",
      result: denyResult({
        tool: input.via,
        code: "E_AUDIT_WRITE",
        reason: "the audit log could not be written, so nothing was described",
        violations: [],
        by: "toolgate",
      }),
    };
  }
  shown();
  return { kind: "described", tool: definition };
}
