import { appendAll } from "../engine/model/diagnostics.js";
import type { Policy } from "../engine/model/policy.js";
import type { SourceMap } from "../engine/model/source.js";
import type { PolicyReader } from "./policyReader.js";
import { entryOf, unknownKeyWarnings } from "./sourceTree.js";

/** The policy's settings sections: `enforcement` (with toolgate's extensions) and `limits`. */

const ENFORCEMENT_FIELDS = ["unconstrained_tools", "denied_tools", "unpinned_tools"] as const;
const LIMIT_FIELDS = ["max_requests_total", "max_tool_calls_total"] as const;

export function readEnforcement(r: PolicyReader, root: SourceMap): Policy["enforcement"] {
  const out: Policy["enforcement"] = {
    unconstrainedTools: "warn",
    deniedTools: "hide",
    unpinnedTools: "allow",
  };
  const map = r.map(entryOf(root, "enforcement")?.value, "enforcement settings");
  if (map === undefined) return out;
  appendAll(r.diagnostics, unknownKeyWarnings(map, ENFORCEMENT_FIELDS, "enforcement"));
  const field = (key: string) => entryOf(map, key)?.value;
  const unconstrained = field("unconstrained_tools");
  const denied = field("denied_tools");
  const unpinned = field("unpinned_tools");
  out.unconstrainedTools =
    (unconstrained && r.oneOf(unconstrained, ["warn", "deny", "allow"] as const)) ?? out.unconstrainedTools;
  out.deniedTools = (denied && r.oneOf(denied, ["hide", "explain"] as const)) ?? out.deniedTools;
  out.unpinnedTools = (unpinned && r.oneOf(unpinned, ["allow", "deny"] as const)) ?? out.unpinnedTools;
  return out;
}

export function readLimits(r: PolicyReader, root: SourceMap): Policy["limits"] {
  const out: Policy["limits"] = {};
  const map = r.map(entryOf(root, "limits")?.value, "limits");
  if (map === undefined) return out;
  appendAll(r.diagnostics, unknownKeyWarnings(map, LIMIT_FIELDS, "limits"));
  const requests = entryOf(map, "max_requests_total");
  const calls = entryOf(map, "max_tool_calls_total");
  const maxRequests = requests && r.nonNegativeInteger(requests.value);
  const maxCalls = calls && r.nonNegativeInteger(calls.value);
  if (maxRequests !== undefined) out.maxRequestsTotal = maxRequests;
  if (maxCalls !== undefined) out.maxToolCallsTotal = maxCalls;
  return out;
}
