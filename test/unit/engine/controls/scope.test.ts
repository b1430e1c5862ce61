import { posix } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkScope, evaluateScope, type ScopeContractInput } from "../../../../src/engine/controls/scope.js";
import { pathVariants, percentDecode } from "../../../../src/engine/controls/pathForm.js";
import { isPathName, isResourceName, nameWords } from "../../../../src/engine/controls/argumentNames.js";

const workspace: ScopeContractInput = {
  scopeType: "path_prefix",
  scopeValue: "/workspace",
  scopeMatchMode: "prefix",
};

/** Reference containment: node's POSIX normalization after turning backslashes into slashes. */
function nodeInside(path: string): boolean {
  const n = posix.normalize(path.replace(/\\/g, "/"));
  return n === "/workspace" || n === "/workspace/" || n.startsWith("/workspace/");
}

const segment = fc.constantFrom(
  "workspace",
  "workspace_evil",
  "work",
  "a",
  "b",
  "..",
  ".",
  "",
  "etc",
  "...",
  "x y",
);
const separator = fc.constantFrom("/", "\\", "//");
const absolutePath = fc
  .array(fc.tuple(separator, segment), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.map(([sep, seg]) => sep + seg).join(""));

describe("path_prefix against node's normalization", () => {
  it("inside exactly when the normalized path is /workspace or below it (absolute paths without escapes)", () => {
    fc.assert(
      fc.property(absolutePath, (path) => {
        const inside = checkScope(workspace, "t", { path }).length === 0;
        expect(inside).toBe(nodeInside(path));
      }),
      { numRuns: 3000 },
    );
  });

  it("never admits a path one of whose percent-decodings node places outside", () => {
    const encodeSome = (text: string, picks: boolean[], twice: boolean[]) =>
      [...text]
        .map((ch, i) => {
          if (!picks[i % picks.length]) return ch;
          const once = `%${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
          return twice[i % twice.length] ? once.replace("%", "%25") : once;
        })
        .join("");
    fc.assert(
      fc.property(
        absolutePath,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        (path, picks, twice) => {
          const encoded = `/${encodeSome(path.slice(1), picks, twice)}`;
          if (checkScope(workspace, "t", { path: encoded }).length > 0) return;
          let form: string | null = encoded;
          for (let i = 0; i < 6 && form !== null; i++) {
            expect(nodeInside(form), `${encoded} decoded to ${form}`).toBe(true);
            const next = percentDecode(form);
            if (next === form) break;
            form = next;
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("the scope directory is inside, its siblings sharing the letters are not", () => {
    expect(checkScope(workspace, "t", { path: "/workspace" })).toEqual([]);
    expect(checkScope(workspace, "t", { path: "/workspace_evil" })).toHaveLength(1);
    expect(checkScope(workspace, "t", { path: "/workspaces/a" })).toHaveLength(1);
  });

  it("reports every violating argument with its pointer and leaves the arguments untouched", () => {
    const args = { paths: ["/etc/a", "/workspace/b", "/workspace/../c"], "odd/name": "/x" };
    const before = JSON.stringify(args);
    const e = evaluateScope(workspace, "t", args);
    expect(e.violations.map((v) => v.path)).toEqual(["/paths/0", "/paths/2"]);
    expect(e.checked).toEqual(["/paths/0", "/paths/1", "/paths/2"]);
    expect(JSON.stringify(args)).toBe(before);
  });

  it("escapes JSON-pointer tokens of member names", () => {
    const e = evaluateScope(workspace, "t", { "a/file": "/etc", "b~path": "/etc" });
    expect(e.violations.map((v) => v.path)).toEqual(["/a~1file", "/b~0path"]);
  });

  it("refuses arguments that are not an object, and a scope value that is not absolute", () => {
    expect(checkScope(workspace, "t", ["/workspace"])[0]!.path).toBe("");
    const bad = { ...workspace, scopeValue: "workspace" };
    expect(checkScope(bad, "t", { path: "/workspace" })[0]!.message).toContain("scope value");
  });

  it("contains mode is refused for paths (the loader rejects it; a programmatic contract fails closed)", () => {
    const contains = { ...workspace, scopeMatchMode: "contains" as const };
    expect(checkScope(contains, "t", { path: "/workspace/a" })[0]!.message).toContain("cannot contain paths");
  });

  it("a '~' scope admits only paths under the same '~' segment", () => {
    const home = { ...workspace, scopeValue: "~/projects" };
    expect(checkScope(home, "t", { path: "~/projects/a" })).toEqual([]);
    expect(checkScope(home, "t", { path: "~/secrets" })).toHaveLength(1);
    expect(checkScope(home, "t", { path: "~root/projects/a" })).toHaveLength(1);
  });

  it("a resolver that throws makes a violation, not an exception", () => {
    const withRealpath = { ...workspace, realpath: true };
    const v = checkScope(withRealpath, "t", { path: "/workspace/a" }, undefined, () => {
      throw new Error("EACCES: permission denied");
    });
    expect(v[0]!.message).toContain("EACCES");
  });
});

describe("path_prefix with several roots (scope_value as a list)", () => {
  const roots: ScopeContractInput = {
    scopeType: "path_prefix",
    scopeValue: "/work/a",
    scopeValues: ["/work/a", "/srv/b"],
    scopeMatchMode: "prefix",
  };

  it("admits a path inside any root, and nothing between or beside them", () => {
    expect(checkScope(roots, "t", { path: "/work/a/x" })).toEqual([]);
    expect(checkScope(roots, "t", { source: "/work/a/x", destination: "/srv/b/y" })).toEqual([]);
    for (const path of ["/work", "/work/ab", "/srv/b/../c", "/work/a/../../srv"]) {
      expect(checkScope(roots, "t", { path })).toHaveLength(1);
    }
    expect(checkScope(roots, "t", { path: "/etc/passwd" })[0]!.message).toBe(
      `"/etc/passwd" is '/etc/passwd', outside the scope '/work/a' or '/srv/b'`,
    );
  });

  it("with realpath, the written and the resolved path must each be inside one of them", () => {
    const links: Record<string, string> = { "/work/a": "/real/a", "/srv/b": "/srv/b", "/srv/b/link": "/etc" };
    const resolve = (p: string): string | null => links[p] ?? (p.startsWith("/real/") ? p : null);
    const linked = { ...roots, realpath: true };
    expect(checkScope(linked, "t", { path: "/work/a" }, undefined, resolve)).toEqual([]);
    expect(checkScope(linked, "t", { path: "/srv/b/link" }, undefined, resolve)[0]!.message).toContain(
      "resolves to '/etc', outside the scope",
    );
  });

  it("a root that cannot be resolved contains nothing, and the others still do", () => {
    const linked = { ...roots, realpath: true };
    const resolve = (p: string): string | null => {
      if (p.startsWith("/srv/b") || p === "/") return p;
      throw new Error(`EACCES: ${p}`);
    };
    expect(checkScope(linked, "t", { path: "/srv/b/x" }, undefined, resolve)).toEqual([]);
    expect(checkScope(linked, "t", { path: "/work/a/x" }, undefined, resolve)).toHaveLength(1);
  });
});

describe("pathVariants", () => {
  it.each([
    ["/a/%2e%2e/b", 2],
    ["/a/%252e/b", 3],
    ["/a/b", 1],
    ["/a/%zz", 1],
  ])("%s has %i forms", (text, n) => {
    const v = pathVariants(text);
    expect(v.ok && v.forms.length).toBe(n);
  });
});

describe("resource scope", () => {
  const api = (
    mode: "exact" | "prefix" | "contains",
    value = "https://api.example.com/v1",
  ): ScopeContractInput => ({
    scopeType: "resource",
    scopeValue: value,
    scopeMatchMode: mode,
  });
  it.each([
    ["prefix", "https://api.example.com/v1", true],
    ["prefix", "https://api.example.com/v1/users", true],
    ["prefix", "https://api.example.com/v1?q=1", true],
    ["prefix", "HTTPS://API.EXAMPLE.COM/v1/users", true],
    ["prefix", "https://api.example.com:443/v1/users", true],
    ["prefix", "https://api.example.com/v10", false],
    ["prefix", "https://api.example.com/v1/../admin", false],
    ["prefix", "https://api.example.com/v1/%2e%2e/admin", false],
    ["prefix", "https://api.example.com/v1/%252e%252e/admin", false],
    ["prefix", "https://api.example.com.evil.net/v1", false],
    ["prefix", "https://api.example.com/v1@evil.net", false],
    ["prefix", "http://api.example.com/v1", false],
    ["exact", "https://api.example.com/v1", true],
    ["exact", "https://api.example.com/v1/", false],
    ["exact", "https://api.example.com/x/../v1", true],
    ["contains", "https://mirror.net/?u=https://api.example.com/v1", true],
    ["contains", "https://api.example.com/v2", false],
  ] as const)("%s: %s → %s", (mode, uri, inside) => {
    expect(checkScope(api(mode), "fetch", { uri }).length === 0).toBe(inside);
  });

  it("a host scope does not admit a longer host or userinfo tricks", () => {
    const host = api("prefix", "https://api.example.com");
    expect(checkScope(host, "fetch", { url: "https://api.example.com/x" })).toEqual([]);
    expect(checkScope(host, "fetch", { url: "https://api.example.com.evil.net/x" })).toHaveLength(1);
    expect(checkScope(host, "fetch", { url: "https://api.example.com@evil.net/x" })).toHaveLength(1);
  });

  it.each([
    ["https://ok.example\\api\\@evil.com/x", "backslash"],
    ["https://ok.example:443\\@evil.com/x", "backslash"],
    ["https://ok.example\\\\@evil.com/api/x", "backslash"],
    ["https://ok.example/api/\\..\\..\\x", "backslash"],
    ["https://user@ok.example/api/x", "userinfo"],
    ["https://ok.example@evil.com/api/x", "userinfo"],
    ["https://ok.ex%61mple/api/x", "percent-encoded authority"],
    ["https://ok.example/api/x\n", "control character"],
    ["https://ok.exa\tmple/api/x", "control character"],
    ["https://ok.example/a pi/x", "whitespace"],
    ["https:ok.example/api/x", "no '//' authority"],
    ["https://ok.éxample/api/x", "non-ASCII"],
    ["https://0x7f.1/api/x", "host '127.0.0.1'"],
  ])("refuses %s, which another URL parser reads differently (%s)", (url, why) => {
    const scope = api("prefix", "https://ok.example/api/");
    const violations = checkScope(scope, "fetch", { url });
    expect(violations).toHaveLength(1);
    expect(violations[0]!.message).toContain(why);
  });

  it("still admits plain URLs inside the scope, default port and case included", () => {
    const scope = api("prefix", "https://ok.example/api/");
    for (const url of [
      "https://ok.example/api/x",
      "HTTPS://OK.EXAMPLE/api/x",
      "https://ok.example:443/api/x?q=1",
    ]) {
      expect(checkScope(scope, "fetch", { url })).toEqual([]);
    }
  });

  it("opaque resource names compare as written", () => {
    const db = api("prefix", "db:users/");
    expect(checkScope(db, "q", { resource: "db:users/42" })).toEqual([]);
    expect(checkScope(db, "q", { resource: "db:orders/1" })).toHaveLength(1);
    const plain = api("exact", "reports");
    expect(checkScope(plain, "q", { resource: "reports" })).toEqual([]);
  });

  it("every resource-like argument is checked; none is a violation", () => {
    const v = checkScope(api("prefix"), "fetch", {
      uris: ["https://api.example.com/v1/a", "file:///etc"],
      x: 1,
    });
    expect(v.map((x) => x.path)).toEqual(["/uris/1"]);
    expect(checkScope(api("prefix"), "fetch", { q: "x" })[0]!.message).toContain("no resource argument");
    expect(checkScope(api("prefix"), "fetch", { url: 3 })[0]!.message).toContain("not a resource string");
    expect(checkScope(api("prefix"), "fetch", { url: "https://api.example.com/v1\0" })).toHaveLength(1);
  });
});

describe("tool scope", () => {
  it.each([
    ["exact", "fs_read", "fs_read", true],
    ["exact", "fs_read", "fs_read2", false],
    ["prefix", "fs_", "fs_write", true],
    ["prefix", "fs_", "net_fs_write", false],
    ["contains", "read", "fs_read_file", true],
    ["contains", "read", "fs_write", false],
  ] as const)("%s '%s' with tool %s → %s", (mode, value, tool, inside) => {
    const c: ScopeContractInput = { scopeType: "tool", scopeValue: value, scopeMatchMode: mode };
    expect(checkScope(c, tool, {}).length === 0).toBe(inside);
  });
});

describe("argument names", () => {
  it.each([
    ["filePath", ["file", "path"]],
    ["APIKey", ["api", "key"]],
    ["x-api-key", ["x", "api", "key"]],
    ["root_dir", ["root", "dir"]],
  ])("%s splits into %j", (name, words) => {
    expect(nameWords(name)).toEqual(words);
  });
  it.each([
    ["path", true],
    ["paths", true],
    ["old_path", true],
    ["sourceFile", true],
    ["file_name", true],
    ["workdir", true],
    ["destination", true],
    ["uri", true],
    ["file_count", false],
    ["directory_depth", false],
    ["profile", false],
    ["content", false],
    ["url", false],
  ])("path-like %s → %s", (name, yes) => {
    expect(isPathName(name)).toBe(yes);
  });
  it.each([
    ["uri", true],
    ["resource_url", true],
    ["href", true],
    ["path", false],
  ])("resource-like %s → %s", (name, yes) => {
    expect(isResourceName(name)).toBe(yes);
  });
});
