import { entryOf } from "../../../config/sourceTree.js";
import { convertGlob, literalServer, ruleScope } from "./claudeRules.js";
import { applySwitches, readServerSwitches } from "./claudeServers.js";
import {
  addEntries,
  chooseServer,
  ImportInputError,
  lineNote,
  type ImportedEntry,
  type ImportedPolicy,
  type ImportOutcome,
  type ReportItem,
  type Spot,
} from "./model.js";
import { asMap, listEntry, mapEntry, readStrictJson, spotOf } from "./read.js";

/**
 * `--from claude-code`: a Claude Code settings file (`permissions.allow/ask/deny`, notes/clients.md §1.6).
 * Claude decides deny, then ask, then allow, the first match winning; a tool no rule matches is decided by
 * `permissions.defaultMode` (`default`: the user is asked). The mapping, per tool of the chosen server:
 *
 *   deny → tools.deny · ask → allowed and in tools.approval_required · allow → allowed
 *
 * toolgate's approval_required is a plain pattern list applied to allowed calls, with no exceptions, so
 * "ask about everything except the allow rules" has no exact form unless the allow rules cover nothing
 * (then `approval_required: ["*"]`) or the whole server (then only the ask rules). Otherwise the
 * unmatched tools are denied, the stricter choice, and reported: putting every tool under approval
 * instead would make the explicitly allowed ones unusable for a client that cannot be asked.
 *
 * Settings that switch the whole server off (`deniedMcpServers`, `allowedMcpServers`,
 * `disabledMcpjsonServers`: claudeServers.ts) make it `allow: []`, as Gemini's `mcp.excluded` does.
 */

type List = "deny" | "ask" | "allow";

interface Rule extends Spot {
  list: List;
  text: string;
}

/** What the rules of one list carried over, and whether each entry is exact (superset entries are not). */
interface Carried {
  entries: ImportedEntry[];
  exact: ImportedEntry[];
}

/** defaultMode values whose decision for an unmatched MCP tool is asking, or denying without asking. */
const ASKING_MODES = ["default", "acceptEdits"];
const DENYING_MODES = ["dontAsk"];

export function importClaudeCode(file: string, text: string, requested?: string): ImportOutcome {
  const root = asMap(readStrictJson(file, text), "the settings file");
  const permissions = mapEntry(root, "permissions", "permissions");
  const rules: Rule[] = [];
  let mode: { value: string; spot: Spot } | undefined;
  if (permissions !== undefined) {
    for (const list of ["deny", "ask", "allow"] as const) {
      for (const item of listEntry(permissions, list, `permissions.${list}`) ?? []) {
        rules.push({ list, text: item.value, line: item.line, column: item.column });
      }
    }
    const entry = entryOf(permissions, "defaultMode");
    if (entry !== undefined) {
      const value = entry.value;
      if (value.kind !== "scalar" || typeof value.value !== "string") {
        throw new ImportInputError("permissions.defaultMode must be a string", spotOf(value));
      }
      mode = { value: value.value, spot: spotOf(value) };
    }
  }
  const switches = readServerSwitches(root);
  const found = [...new Set(rules.map((r) => literalServer(r.text)).filter((s) => s !== undefined))];
  const server = chooseServer(
    found,
    requested,
    (s) =>
      rules.some((r) => ruleScope(r.text, s).kind !== "other") ||
      switches.named.includes(s) ||
      switches.switchesOff(s).length > 0,
  );

  const report: ReportItem[] = [];
  const ignored: string[] = [];
  const carried: Record<List, Carried> = {
    deny: { entries: [], exact: [] },
    ask: { entries: [], exact: [] },
    allow: { entries: [], exact: [] },
  };
  const every = `every tool of ${server}`;
  for (const rule of rules) {
    const item = `${rule.list} rule "${rule.text}"`;
    const from = `${rule.list} "${rule.text}"${lineNote(rule)}`;
    const note = (why: string) => report.push({ line: rule.line, column: rule.column, item, why });
    const carry = (pattern: string, exact: boolean) => {
      addEntries(carried[rule.list].entries, [{ pattern, from }]);
      if (exact) addEntries(carried[rule.list].exact, [{ pattern, from }]);
    };
    const scope = ruleScope(rule.text, server);
    switch (scope.kind) {
      case "other":
        ignored.push(rule.text);
        break;
      case "parameters":
        note(
          "it matches arguments; Claude Code skips such MCP rules in settings files, and toolgate says it with a schema; not carried",
        );
        break;
      case "any-server":
      case "server-glob":
        if (rule.list === "allow") {
          note(
            "Claude Code ignores a wildcard in the server part of an allow rule (it approves nothing); not carried",
          );
          break;
        }
        carry("*", scope.kind === "any-server" && scope.documented);
        if (scope.kind === "server-glob") {
          note(`a wildcard in the server name cannot be said per server; carried as ${every} (stricter)`);
        } else if (!scope.documented) {
          note(
            `only "mcp__*" is documented to reach MCP tools; carried as ${every} (stricter if Claude Code does not apply it)`,
          );
        }
        break;
      case "tools": {
        const converted = convertGlob(scope.glob);
        if (converted.exact) {
          carry(converted.pattern, true);
        } else if (rule.list === "allow") {
          note(
            "a '*' in the middle of a name is a literal asterisk in toolgate patterns; not carried, so the tools it allows are not allowed (stricter)",
          );
        } else {
          carry(converted.pattern, false);
          note(
            `a '*' in the middle of a name is a literal asterisk in toolgate patterns; carried as "${converted.pattern}", which matches every tool the rule matches and more (stricter)`,
          );
        }
        break;
      }
    }
  }

  const modeName = mode?.value ?? "default";
  const modeNote = (why: string) => report.push({ ...mode?.spot, item: `defaultMode "${modeName}"`, why });
  let unmatched: "ask" | "deny";
  if (ASKING_MODES.includes(modeName)) unmatched = "ask";
  else if (DENYING_MODES.includes(modeName)) unmatched = "deny";
  else if (modeName === "bypassPermissions") {
    unmatched = "ask";
    modeNote("Claude Code runs tools no rule matches without asking; carried as asking (stricter)");
  } else {
    unmatched = "deny";
    modeNote(
      "how this mode decides tools no rule matches is not documented; carried as denying them (stricter)",
    );
  }

  const policy: ImportedPolicy = {
    format: "claude-code",
    file,
    server,
    allow: null,
    deny: [...carried.deny.entries],
    approvalRequired: [],
    notes: [
      `Claude Code decides deny, then ask, then allow (the first match wins); defaultMode is "${modeName}".`,
    ],
  };
  const has = (list: List, pattern: string) => carried[list].entries.some((e) => e.pattern === pattern);
  if (unmatched === "deny") {
    // Without asking, an ask rule denies as surely as a deny rule; an allow rule is the only way in.
    addEntries(
      policy.deny,
      carried.ask.entries.map((e) => ({
        pattern: e.pattern,
        from: `${e.from}: denied, this mode never asks`,
      })),
    );
    policy.allow = has("allow", "*") ? null : [...carried.allow.entries];
    policy.notes.push(
      "A tool no allow rule matches is denied without asking; so are the tools of ask rules.",
    );
  } else if (has("ask", "*") || carried.allow.entries.length === 0) {
    policy.approvalRequired = [{ pattern: "*", from: `Claude Code asks about ${every} not denied` }];
    policy.notes.push(`No allow rule exempts a tool from asking: ${every} not denied is under approval.`);
  } else if (has("allow", "*")) {
    policy.approvalRequired = [...carried.ask.entries];
    policy.notes.push(
      "An allow rule covers the whole server: every tool not denied is allowed; ask rules need approval.",
    );
  } else {
    policy.allow = [...carried.allow.entries];
    addEntries(policy.allow, carried.ask.exact);
    policy.approvalRequired = [...carried.ask.entries];
    policy.notes.push(
      "A tool no rule matches: Claude Code asks; here it is denied (approval_required cannot exempt the allowed tools).",
    );
    report.push({
      ...mode?.spot,
      item: "tools no rule matches",
      why: "Claude Code asks about them, but approval_required cannot exempt the allowed tools, so they are denied (stricter); add the ones you want to tools.allow and tools.approval_required",
    });
  }
  return applySwitches({ policy, report, ignored }, switches.switchesOff(server));
}
