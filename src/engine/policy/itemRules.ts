import type { ItemDecisionCode } from "../model/codes.js";
import type { ItemDecision, ItemKind, Rule } from "../model/decision.js";
import type { ItemRules, PatternEntry } from "../model/policy.js";
import { compileResourcePattern } from "../patterns/resourcePattern.js";
import { PolicyNameIndex } from "./nameIndex.js";

/**
 * The opt-in `resources:` and `prompts:` sections of a policy: which resources (URIs and URI templates) and
 * prompts (names) a client may see and use. The same two rules as tool names: deny beats allow, and with an
 * allowlist only a matching item is admitted. A policy without the section decides nothing about its kind
 * (the gateway then passes resources or prompts as it always did). Pure and synchronous.
 */

export type { ItemDecision, ItemKind };

export interface CompiledItemRules {
  kind: ItemKind;
  rules: ItemRules;
  allow: ItemMatcher | null;
  deny: ItemMatcher;
}

/** First entry in file order that matches a name. */
interface ItemMatcher {
  readonly size: number;
  firstMatch(name: string): PatternEntry | undefined;
}

const POLICY = "policy";
const SECTION: Record<ItemKind, "resources" | "prompts"> = { resource: "resources", prompt: "prompts" };
const CODES: Record<ItemKind, { denied: ItemDecisionCode; notAllowed: ItemDecisionCode }> = {
  resource: { denied: "E_RESOURCE_DENIED", notAllowed: "E_RESOURCE_NOT_ALLOWED" },
  prompt: { denied: "E_PROMPT_DENIED", notAllowed: "E_PROMPT_NOT_ALLOWED" },
};

/** `null` when the policy has no such section: then nothing about this kind is decided. */
export function compileItemRules(kind: ItemKind, rules: ItemRules | undefined): CompiledItemRules | null {
  if (rules === undefined) return null;
  const matcher = kind === "prompt" ? promptMatcher : resourceMatcher;
  return {
    kind,
    rules,
    allow: rules.allow === null ? null : matcher(rules.allow),
    deny: matcher(rules.deny),
  };
}

/**
 * The decision for one resource URI or template (the template string itself, as listed) or one prompt
 * name. `shownAs` is the name through the gateway (serve's `<server>__<prompt>`): a deny entry written that
 * way denies it too, as for tools.
 */
export function decideItem(compiled: CompiledItemRules, name: string, shownAs?: string): ItemDecision {
  const { kind } = compiled;
  const section = SECTION[kind];
  const own = compiled.deny.firstMatch(name);
  const denied = own ?? (shownAs === undefined ? undefined : compiled.deny.firstMatch(shownAs));
  if (denied !== undefined) {
    const via = own === undefined ? ` (its name through the gateway, '${shownAs}')` : "";
    return {
      decision: "deny",
      code: CODES[kind].denied,
      kind,
      name,
      rule: entryRule(`${section}.deny`, denied),
      reason: `${kind} '${name}' is denied by ${section}.deny entry '${denied.pattern}'${via}`,
    };
  }
  if (compiled.allow === null) {
    return {
      decision: "allow",
      code: null,
      kind,
      name,
      rule: { layer: POLICY, kind: `${section}.allow`, value: `(no allowlist: every ${kind} not denied)` },
      reason: `${kind} '${name}' is not denied and ${section} has no allowlist`,
    };
  }
  const allowed = compiled.allow.firstMatch(name);
  if (allowed === undefined) {
    return {
      decision: "deny",
      code: CODES[kind].notAllowed,
      kind,
      name,
      rule: { layer: POLICY, kind: `${section}.allow`, value: "(no entry matches)" },
      reason:
        compiled.allow.size === 0
          ? `${kind} '${name}' is not allowed: ${section}.allow is empty, so nothing is allowed`
          : `${kind} '${name}' matches no ${section}.allow entry`,
    };
  }
  return {
    decision: "allow",
    code: null,
    kind,
    name,
    rule: entryRule(`${section}.allow`, allowed),
    reason: `${kind} '${name}' is allowed by ${section}.allow entry '${allowed.pattern}'`,
  };
}

/** What `policy check` says for a kind the policy has no section for: allowed, and why. */
export function undecidedItem(kind: ItemKind, name: string): ItemDecision {
  const section = SECTION[kind];
  return {
    decision: "allow",
    code: null,
    kind,
    name,
    rule: { layer: POLICY, kind: section, value: `(no ${section} section: ${section} are not filtered)` },
    reason: `the policy has no ${section} section, so ${kind} '${name}' passes unfiltered`,
  };
}

function promptMatcher(entries: readonly PatternEntry[]): ItemMatcher {
  return new PolicyNameIndex(entries);
}

function resourceMatcher(entries: readonly PatternEntry[]): ItemMatcher {
  const patterns = entries.map((entry) => ({ entry, p: compileResourcePattern(entry.pattern) }));
  return {
    size: entries.length,
    firstMatch: (uri) => patterns.find(({ p }) => p.matches(uri))?.entry,
  };
}

function entryRule(kind: string, entry: PatternEntry): Rule {
  return { layer: POLICY, kind, value: entry.pattern, at: entry.at };
}
