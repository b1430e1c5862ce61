import { stringify } from "yaml";
import type { ToolDefinition } from "../../engine/model/gate.js";
import { appendAll } from "../../engine/model/diagnostics.js";
import { isJsonObject } from "../../engine/rpc/jsonRpc.js";
import { renderPinsYaml, type PinnedCatalog } from "../pin/pinBlock.js";
import type { ServerRoot } from "./serverRoots.js";
import { hasPathArguments, requiredPathArguments, starterSchema, type PathBound } from "./starterSchema.js";

/**
 * How a tool is treated, from its annotations, and why (said in the file's comments). Only a tool the
 * server marks `readOnlyHint: true` runs without a person: `destructiveHint: false` still changes things
 * (a directory created, an entity added), and the README promises "read-only tools allowed, the others
 * behind a person's approval".
 */
export type StarterKind = "read-only" | "approval";

export function starterKind(tool: ToolDefinition): { kind: StarterKind; why: string } {
  const hints = isJsonObject(tool.annotations) ? tool.annotations : {};
  if (hints.readOnlyHint === true)
    return { kind: "read-only", why: "readOnlyHint: the server says it changes nothing" };
  return {
    kind: "approval",
    why:
      hints.destructiveHint === true
        ? "destructiveHint: it may destroy things, so a person approves each call"
        : hints.destructiveHint === false
          ? "no readOnlyHint: it changes things (destroying nothing, says destructiveHint: false), so a person approves each call"
          : "no readOnlyHint: MCP assumes such a tool may destroy things, so a person approves each call",
  };
}

export interface StarterInput {
  /** How the server named itself (shown in the header). */
  server: string;
  tools: readonly ToolDefinition[];
  pins: PinnedCatalog;
  /** The directories the server was given (serverRoots.ts); none: path arguments are not scoped. */
  roots?: readonly ServerRoot[];
}

interface ToolPlan {
  tool: ToolDefinition;
  kind: StarterKind;
  why: string;
  /** The required path arguments restrict_scope checks; empty: not scoped. */
  scopedBy: string[];
  paths: PathBound;
}

/**
 * A starter policy file from a server's live catalog, with a comment for every choice: read-only tools
 * allowed; every other tool allowed under `approval_required`; path arguments kept inside the server's
 * roots by `restrict_scope`; a schema per tool that is the server's own, closed (starterSchema.ts: never
 * narrower than what the server accepts); a pin per tool; and enforcement that refuses what is not covered
 * (tools without a schema, tools the server adds later). Pure; the text loads as a v2 policy file, and
 * `policy validate` finds nothing to warn about.
 */
export function starterPolicyYaml(input: StarterInput): string {
  const roots = input.roots ?? [];
  const sorted = [...input.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const plans = sorted.map((tool) => plan(tool, roots.length > 0));
  const q = (s: string) => JSON.stringify(s);
  const lines: string[] = [
    `# toolgate policy init: a starter policy for ${input.server} (${sorted.length} tool${sorted.length === 1 ? "" : "s"}), from its live catalog.`,
    "# Every choice below is a starting point: read each comment, then narrow what you allow.",
    'version: "2.0"',
    "tools:",
  ];
  if (sorted.length === 0) {
    lines.push("  allow: []");
  } else {
    lines.push("  allow:");
    for (const { tool, why } of plans) lines.push(`    - ${q(tool.name)} # ${why}`);
  }
  const asked = plans.filter((p) => p.kind === "approval");
  if (asked.length > 0) {
    lines.push(
      "  # A person approves each call of these: in a client with MCP form elicitation, in serve's dashboard,",
      "  # or with a signed artifact from `toolgate approve`. The schema and scope are checked first.",
      "  approval_required:",
    );
    for (const { tool } of asked) lines.push(`    - ${q(tool.name)}`);
  }
  appendAll(lines, scopeLines(plans, roots, q));
  if (sorted.length > 0) {
    lines.push(
      "# Each tool's arguments as the server takes them, closed: no undeclared arguments, nothing the server",
      "# accepts refused. Lengths are the server's own ($comment: unbounded where it sets none)",
      plans.some((p) => p.scopedBy.length > 0)
        ? "# and paths are bounded by restrict_scope above, not by a length."
        : "# and a length is no bound on a path: restrict_scope is.",
      "schemas:",
    );
    for (const p of plans) {
      const schema = starterSchema(p.tool.inputSchema ?? { type: "object", properties: {} }, p.paths);
      lines.push(`  ${q(p.tool.name)}:`);
      const body = stringify(schema, { lineWidth: 0 }).trimEnd();
      for (const line of body.split("\n")) lines.push(`    ${line}`);
    }
  }
  lines.push(
    renderPinsYaml(input.pins, [
      "What each tool looked like when this file was made: a server that changes one later has it withheld.",
    ]).trimEnd(),
  );
  lines.push(
    "enforcement:",
    "  unconstrained_tools: deny # every allowed tool has a schema above; a tool without one is refused",
    "  unpinned_tools: deny # a tool the server adds later stays withheld until you review and pin it",
  );
  return lines.join("\n") + "\n";
}

function plan(tool: ToolDefinition, rooted: boolean): ToolPlan {
  const scopedBy = rooted ? requiredPathArguments(tool.inputSchema) : [];
  const paths: PathBound = !rooted ? "no-roots" : scopedBy.length > 0 ? "scoped" : "optional";
  return { tool, ...starterKind(tool), scopedBy, paths };
}

/** `restrict_scope` and its contract: every tool that always names a path, inside the server's roots. */
function scopeLines(
  plans: readonly ToolPlan[],
  roots: readonly ServerRoot[],
  q: (s: string) => string,
): string[] {
  const scoped = plans.filter((p) => p.scopedBy.length > 0);
  const unscoped = plans.filter((p) => p.scopedBy.length === 0 && hasPathArguments(p.tool.inputSchema));
  if (roots.length === 0) {
    if (unscoped.length === 0) return [];
    return [
      "  # Not scoped: the server's command names no directory, so toolgate cannot tell which paths are the",
      "  # server's. To keep paths inside a directory, add restrict_scope with a path_prefix contract.",
    ];
  }
  if (scoped.length === 0) return [];
  const lines = [
    "  # Paths stay inside the directories the server was given: every path argument of these tools is",
    "  # normalized and contained by path segment (../ and look-alike siblings are refused).",
    "  restrict_scope:",
    ...scoped.map(
      (p) => `    - ${q(p.tool.name)} # every call names ${p.scopedBy.map((a) => `'${a}'`).join(", ")}`,
    ),
  ];
  if (unscoped.length > 0) {
    lines.push(
      `  # Not scoped: ${unscoped.map((p) => q(p.tool.name)).join(", ")} (a path argument is optional, and a scope refuses a call without one).`,
    );
  }
  lines.push("  restrict_scope_contract:", "    scope_type: path_prefix");
  if (roots.length === 1) {
    lines.push(`    scope_value: ${q(roots[0]!.path)} # ${roots[0]!.from}`);
  } else {
    lines.push("    scope_value: # a path is in scope when it is inside any of these");
    for (const root of roots) lines.push(`      - ${q(root.path)} # ${root.from}`);
  }
  lines.push(
    "    scope_match_mode: prefix # the directory itself and everything below it",
    "    realpath: true # the server runs on this machine: symbolic links are resolved, as the server resolves them",
  );
  return lines;
}
