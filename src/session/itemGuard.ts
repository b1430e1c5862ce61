import { INTERNAL_ERROR, type JsonRpcErrorObject, type JsonRpcId } from "../engine/rpc/jsonRpc.js";
import type { ItemDecision, ItemKind } from "../engine/model/decision.js";
import type { ToolGate } from "../engine/model/gate.js";
import type { HiddenItem, ItemListEvent } from "../audit/events.js";
import { auditRule } from "../audit/events.js";
import type { AuditSink } from "../audit/sink.js";
import { AuditRecorder, type AuditIdentity } from "./auditRecorder.js";

/** The list methods whose items the opt-in sections filter, with the field each item is known by. */
export const ITEM_LISTS = {
  "resources/list": { kind: "resource", field: "resources", key: "uri" },
  "resources/templates/list": { kind: "resource", field: "resourceTemplates", key: "uriTemplate" },
  "prompts/list": { kind: "prompt", field: "prompts", key: "name" },
} as const satisfies Record<ItemListEvent["event"], { kind: ItemKind; field: string; key: string }>;

export type ItemListMethod = keyof typeof ITEM_LISTS;

/** Where a request is: the client's request id, the server (serve), and the item's name through the gateway. */
export interface ItemWhere {
  requestId: JsonRpcId | null;
  policyDigest: string | null;
  server: string | null;
}

/** `pass`: forward it. `hidden`: answer as the server answers an unknown item. `unrecorded`: refuse. */
export type ItemAdmission = "pass" | "hidden" | "unrecorded";

export const ITEM_NOT_RECORDED: JsonRpcErrorObject = {
  code: INTERNAL_ERROR,
  message: "toolgate: E_AUDIT_WRITE the audit log could not be written; the request was not forwarded",
};

/**
 * The policy's opt-in `resources:` / `prompts:` sections at a surface (wrap, serve): which requests about
 * a resource or prompt may reach the server, and which list items the client sees. Every decision is
 * recorded with its rule; a policy without the section decides nothing and records nothing. The surface
 * answers a hidden item as the server answers an unknown one. Fail closed: a decision to forward that could
 * not be recorded is not forwarded.
 */
export class ItemGuard {
  /** A guard writing to `audit` (no log: `null`) as `identity`, with the surface's flags. */
  static of(
    audit: AuditSink | null,
    identity: AuditIdentity,
    flags: { dryRun?: boolean; verbose?: boolean; log(line: string): void },
  ): ItemGuard {
    return new ItemGuard(new AuditRecorder(audit, identity, flags.log), {
      dryRun: flags.dryRun === true,
      verbose: flags.verbose === true,
      log: flags.log,
    });
  }

  constructor(
    private readonly recorder: AuditRecorder,
    private readonly options: { dryRun: boolean; verbose: boolean; log(line: string): void },
  ) {}

  /** One request naming one resource (`name`: URI) or prompt (`name`: the server's own). */
  admit(
    gate: ToolGate,
    kind: ItemKind,
    method: string,
    name: string,
    where: ItemWhere,
    shownAs?: string,
  ): ItemAdmission {
    const decided = gate.itemAccess?.(kind, name, shownAs) ?? null;
    if (decided === null) return "pass";
    const denied = decided.decision === "deny";
    const outcome = !denied ? "allow" : this.options.dryRun ? "would-hide" : "hidden";
    this.say(method, decided, outcome);
    const recorded = this.recorder.item({
      ...where,
      kind,
      method,
      name,
      decision: outcome,
      code: decided.code,
      rule: decided.rule,
      reason: decided.reason,
    });
    if (outcome === "hidden") return "hidden";
    return recorded ? "pass" : "unrecorded";
  }

  /**
   * The items of one list page the client may see (all of them without the section, or under --dry-run),
   * or `null` when the list event could not be recorded (the caller withholds the list).
   */
  filterList(
    gate: ToolGate,
    method: ItemListMethod,
    items: readonly unknown[],
    where: ItemWhere,
    shownAs?: (name: string) => string,
  ): unknown[] | null {
    const { kind, key } = ITEM_LISTS[method];
    if (gate.itemAccess === undefined || gate.itemAccess(kind, "") === null) return [...items];
    const shown: unknown[] = [];
    const hidden: HiddenItem[] = [];
    for (const item of items) {
      const name = nameOf(item, key);
      // An item without its name cannot be judged: it is not shown (fail closed).
      const decided =
        name === undefined
          ? null
          : gate.itemAccess(kind, name, shownAs === undefined ? undefined : shownAs(name));
      if (decided !== null && decided.decision === "allow") {
        shown.push(item);
        continue;
      }
      hidden.push({
        name: name ?? "",
        code: decided?.code ?? null,
        rule: decided === null ? null : auditRule(decided.rule),
      });
      if (decided !== null) this.say(method, decided, this.options.dryRun ? "would-hide" : "hidden");
      if (this.options.dryRun) shown.push(item);
    }
    const recorded = this.recorder.itemList({
      ...where,
      method,
      decision: this.options.dryRun ? "would-filter" : "filtered",
      shown: shown.length,
      hidden: hidden,
    });
    return recorded ? shown : null;
  }

  private say(method: string, d: ItemDecision, outcome: string): void {
    if (!this.options.verbose) return;
    const code = d.code === null ? "" : ` ${d.code}`;
    this.options.log(
      `${method} ${d.kind} ${d.name}: ${outcome}${code} — ${d.reason} [${d.rule.layer} ${d.rule.kind} ${d.rule.value}]`,
    );
  }
}

function nameOf(item: unknown, key: string): string | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const value = (item as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}
