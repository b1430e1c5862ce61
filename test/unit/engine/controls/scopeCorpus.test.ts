import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { ScopeMatchMode, ScopeType } from "../../../../src/engine/model/policy.js";
import { checkScope } from "../../../../src/engine/controls/scope.js";
import type { RealpathHook } from "../../../../src/engine/model/decision.js";

/**
 * The scope corpus: test/corpus/scope/*.yaml. Each document is a contract, an optional input schema and
 * fake filesystem, and calls that must be inside or outside.
 */
interface Case {
  path?: string;
  args?: string;
  tool?: string;
  inside: boolean;
  violations?: string[];
  message?: string;
  about?: string;
  source?: string;
}

interface Suite {
  about: string;
  contract: {
    scope_type: ScopeType;
    scope_value: string;
    scope_match_mode: ScopeMatchMode;
    path_arguments?: string[];
    realpath?: boolean;
  };
  schema?: unknown;
  fs?: { dirs?: string[]; files?: string[]; links?: Record<string, string> };
  no_resolver?: boolean;
  cases: Case[];
}

/**
 * A small in-memory filesystem that resolves like the kernel: component by component, following links
 * (relative link targets against the link's directory), `..` applied to the resolved prefix.
 */
export function fakeRealpath(fs: NonNullable<Suite["fs"]>): RealpathHook {
  const exists = new Set(["/", ...(fs.dirs ?? []), ...(fs.files ?? [])]);
  const links = fs.links ?? {};
  return (p: string) => {
    let queue = p.split("/").filter((s) => s !== "");
    let resolved: string[] = [];
    let hops = 0;
    while (queue.length > 0) {
      const seg = queue.shift()!;
      if (seg === ".") continue;
      if (seg === "..") {
        resolved.pop();
        continue;
      }
      const candidate = `/${[...resolved, seg].join("/")}`;
      const target = links[candidate];
      if (target !== undefined) {
        if (++hops > 40) throw new Error(`ELOOP: too many symbolic links at '${candidate}'`);
        if (target.startsWith("/")) resolved = [];
        queue = [...target.split("/").filter((s) => s !== ""), ...queue];
        continue;
      }
      if (!exists.has(candidate)) return null;
      resolved.push(seg);
    }
    return `/${resolved.join("/")}`;
  };
}

const dir = join(dirname(fileURLToPath(import.meta.url)), "../../../corpus/scope");

for (const name of readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort()) {
  const suites = parseAllDocuments(readFileSync(join(dir, name), "utf8")).map((d) => d.toJS() as Suite);
  describe(`scope corpus: ${name}`, () => {
    for (const suite of suites) {
      const c = suite.contract;
      const contract = {
        scopeType: c.scope_type,
        scopeValue: c.scope_value,
        scopeMatchMode: c.scope_match_mode,
        ...(c.path_arguments ? { pathArguments: c.path_arguments } : {}),
        ...(c.realpath !== undefined ? { realpath: c.realpath } : {}),
      };
      const hook = suite.no_resolver ? undefined : fakeRealpath(suite.fs ?? {});
      describe(suite.about, () => {
        for (const k of suite.cases) {
          const args: unknown = k.args !== undefined ? JSON.parse(k.args) : { path: k.path };
          const label = k.args ?? JSON.stringify(k.path);
          it(`${label} → ${k.inside ? "inside" : "violation"}${k.about ? ` (${k.about})` : ""}`, () => {
            const violations = checkScope(contract, k.tool ?? "read_file", args, suite.schema, hook);
            expect(violations.length === 0, JSON.stringify(violations)).toBe(k.inside);
            if (k.violations !== undefined) expect(violations.map((v) => v.path)).toEqual(k.violations);
            if (k.message !== undefined) {
              expect(violations.map((v) => v.message).join(" | ")).toContain(k.message);
            }
            for (const v of violations) expect(v.message.length).toBeGreaterThan(0);
          });
        }
      });
    }
  });
}
