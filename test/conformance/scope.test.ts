// Conformance, on every surface: tools.restrict_scope with a path_prefix contract (realpath: true) in front
// of a server-filesystem whose own root is wider than the scope, so toolgate is what stops every escape:
// `..`, a sibling sharing the prefix, a symbolic link, percent-encoding, one element of an array; a write
// outside never happens, not even with a matching approval artifact.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { connect } from "../e2e/helpers.js";
import { denial, gates, SURFACES, type GateClient, type ToolResult } from "./surfaces.js";
import { artifact, fsWorld, type FsWorld } from "./worlds.js";

let world: FsWorld;
beforeAll(() => {
  world = fsWorld();
});

const policy = (workspace: string) => `version: "2.0"
tools:
  approval_required: ["write_file"]
  restrict_scope: ["read_text_file", "read_multiple_files", "write_file", "list_directory"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: "${workspace}", scope_match_mode: prefix, realpath: true }
enforcement: { unconstrained_tools: allow }
`;

const ESCAPES: Array<[string, (w: FsWorld) => string]> = [
  ["a .. escape", (w) => `${w.workspace}/../outside.txt`],
  ["a sibling that shares the prefix", (w) => join(w.root, "workspace_evil", "secret.txt")],
  ["a symbolic link out of the scope (realpath: true)", (w) => join(w.workspace, "link", "secret.txt")],
  ["a percent-encoded escape", (w) => `${w.workspace}/%2e%2e/outside.txt`],
];

describe("the control: the bare server", () => {
  it("would read every file the escapes below point at (so toolgate is what stops them)", async () => {
    const bare = await connect({ command: world.server[0]!, args: world.server.slice(1) });
    try {
      for (const [, path] of ESCAPES.slice(0, 3)) {
        const result = (await bare.client.callTool({
          name: "read_text_file",
          arguments: { path: path(world) },
        })) as ToolResult;
        expect(result.isError).toBeFalsy();
        expect(result.content[0]?.text).toMatch(/^(outside|evil|elsewhere)\n$/);
      }
    } finally {
      await bare.close();
    }
  });
});

describe.each(SURFACES)("%s", (surface) => {
  const start = gates();
  let c: GateClient;
  beforeAll(async () => {
    c = await start(surface, { server: world.server, name: "fs", policy: policy(world.workspace) });
  });
  const reached = () => c.received().map((p) => JSON.stringify(p.arguments));

  it.each(ESCAPES)("denies %s with E_SCOPE_VIOLATION; the server never sees it", async (_what, path) => {
    const result = await c.call("read_text_file", { path: path(world) });
    expect(result.isError).toBe(true);
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(JSON.stringify(result.content)).not.toMatch(/outside\n|evil\n|elsewhere\n/);
    expect(reached()).not.toContain(JSON.stringify({ path: path(world) }));
    expect(c.callEvents("read_text_file").at(-1)).toMatchObject({
      ...c.eventBase,
      decision: "deny",
      code: "E_SCOPE_VIOLATION",
      rule: { kind: "tools.restrict_scope" },
    });
  });

  it("allows a path inside the scope", async () => {
    const path = join(world.workspace, "notes.txt");
    const result = await c.call("read_text_file", { path });
    expect(result.content).toEqual([{ type: "text", text: "inside\n" }]);
    expect(c.received("read_text_file")).toEqual([{ name: "read_text_file", arguments: { path } }]);
  });

  it("checks every element of an array argument (read_multiple_files)", async () => {
    const inside = join(world.workspace, "notes.txt");
    const outside = join(world.root, "outside.txt");
    const result = await c.call("read_multiple_files", { paths: [inside, outside] });
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(denial(result).text).toContain(`/paths/1 "${outside}"`);
    expect(denial(result).text).not.toContain("/paths/0");
    // Structured only where the tool called declares no outputSchema: meta mode's mcp_invoke_<server>.
    expect(result.structuredContent?.violations).toEqual(
      c.surface === "serve-meta" ? [expect.objectContaining({ path: "/paths/1" })] : undefined,
    );
    expect((await c.call("read_multiple_files", { paths: [inside] })).isError).toBeFalsy();
    expect(c.received("read_multiple_files")).toEqual([
      { name: "read_multiple_files", arguments: { paths: [inside] } },
    ]);
  });

  it("a write outside the scope never happens, with or without a matching approval artifact", async () => {
    const target = join(world.root, "workspace_evil", `planted-${surface}.txt`);
    const bare = await c.call("write_file", { path: target, content: "x" });
    expect(denial(bare).code).toBe("E_SCOPE_VIOLATION");
    const approved = await c.call(
      "write_file",
      { path: target, content: "x" },
      { approval: artifact("write_file", target) },
    );
    expect(denial(approved).code).toBe("E_SCOPE_VIOLATION");
    expect(existsSync(target)).toBe(false);
    expect(c.received("write_file")).toEqual([]);
    const denied = c.callEvents().filter((e) => e.code === "E_SCOPE_VIOLATION");
    expect(denied).toHaveLength(ESCAPES.length + 3);
    for (const e of denied) expect(e).toMatchObject({ ...c.eventBase, decision: "deny" });
  });
});
