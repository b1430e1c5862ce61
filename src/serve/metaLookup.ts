import type { UpstreamAuthCode } from "../engine/errors.js";
import type { SessionCounters } from "../engine/model/decision.js";
import { denyResult, type ToolResult } from "../session/answers.js";
import type { CatalogState } from "../session/toolCatalog.js";
import { uncountedReason, type ToolSession } from "../session/toolSession.js";
import {
  describeResult,
  invalidArgumentsResult,
  notInCatalogResult,
  searchResult,
  type readMetaArguments,
} from "./metaTools.js";
import type { Json, ServerSlot } from "./routerDeps.js";
import { searchTools } from "./search.js";

/**
 * The meta tools that call nothing (meta mode's search and describe, and arguments that read as no meta
 * request): counted as requests, limited, and answered from the server's catalog as the session filters
 * it. An `invoke` is a tool call and goes through the call flow instead (toolRouter.ts).
 */
export async function answerMetaLookup(
  session: ToolSession,
  slot: ServerSlot,
  requestId: string | number,
  name: string,
  via: string,
  params: Json,
  read: ReturnType<typeof readMetaArguments>,
): Promise<Json> {
  let counters: SessionCounters;
  try {
    counters = await session.countRequest(false);
  } catch (error) {
    return session.uncountedCall(requestId, slot.view, name, uncountedReason(error), params.arguments);
  }
  if (!read.ok) return invalidArgumentsResult(name, read.message);
  const args = read.value;
  const limited = session.limitMetaRequest(requestId, slot.view, via, params.arguments, counters);
  if (limited !== null) return limited;
  if (args.kind === "search") {
    slot.link.relist();
    const state = await slot.link.catalogState();
    if (!state.ok) return catalogUnavailable(via, state);
    const listed = session.filterList({
      requestId,
      server: slot.view,
      tools: [...state.snapshot.tools.values()],
      exactSchemaText: (tool) => state.snapshot.exactSchemaText(tool),
      via,
      markShown: false,
    });
    if (!listed.recorded) {
      return denyResult({
        tool: via,
        code: "E_AUDIT_WRITE",
        reason: "the audit log could not be written, so nothing was searched",
        violations: [],
        by: "toolgate",
      });
    }
    const hits = searchTools(listed.shown, args.query, args.topK);
    session.markShown(
      slot.view,
      hits.map((hit) => hit.name),
    );
    return searchResult(hits);
  }
  let catalog: CatalogState | null = null;
  for (;;) {
    const step = session.describe({
      requestId,
      server: slot.view,
      tool: args.tool,
      catalog,
      via,
      args: params.arguments,
    });
    switch (step.kind) {
      case "needs-catalog":
        catalog = await slot.link.catalogState();
        continue;
      case "described":
        return describeResult(step.tool);
      case "deny":
        return step.result;
      case "absent":
        return notInCatalogResult(args.tool, slot.name);
    }
  }
}

function catalogUnavailable(via: string, state: { reason: string; code?: UpstreamAuthCode }): ToolResult {
  return denyResult({
    tool: via,
    code: state.code ?? "E_CATALOG_UNAVAILABLE",
    reason: state.reason,
    violations: [],
    by: "toolgate",
  });
}
