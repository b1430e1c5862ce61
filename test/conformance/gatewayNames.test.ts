// Conformance, on every surface: a tools.deny entry written as serve's direct mode shows the tool
// (`fs__write_file`) denies server fs's write_file like its own name does, and a deny entry that matches no
// tool of any server (a typo) is reported once the catalogs are in; any other field so written is warned
// about at start (it matches by the server's own names). Against the real server-filesystem.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { outcome } from "../e2e/helpers.js";
import { asListed, gates, SURFACES } from "./surfaces.js";
import { bareTools, fsWorld, type FsWorld } from "./worlds.js";

const POLICY = `version: "2.0"
tools:
  deny: ["fs__write_file", "wirte_file"]
  approval_required: ["fs__move_file"]
enforcement: { unconstrained_tools: allow }
`;

let world: FsWorld;
let all: string[];
beforeAll(async () => {
  world = fsWorld();
  all = (await bareTools(world.server)).map((t) => t.name);
});

describe.each(SURFACES)("%s: deny entries by the gateway's name, and typos", (surface) => {
  const start = gates();

  it("'fs__write_file' hides write_file; its call never reaches the server; the typo is reported", async () => {
    const c = await start(surface, { server: world.server, name: "fs", policy: POLICY });
    expect(await c.tools()).toEqual(
      asListed(
        c,
        all.filter((n) => n !== "write_file"),
      ),
    );
    const target = join(world.workspace, `gateway-name-${surface}.txt`);
    expect(await outcome(c.call("write_file", { path: target, content: "x" }))).toEqual(
      await c.absentAnswer("write_file"),
    );
    expect(existsSync(target)).toBe(false);
    expect(c.received("write_file")).toEqual([]);
    expect(c.callEvents("write_file")).toMatchObject([
      { decision: "hidden", code: "E_TOOL_DENIED", rule: { kind: "tools.deny", value: "fs__write_file" } },
    ]);
    await expect.poll(() => c.stderr()).toMatch(/policy\.yaml:3:\d+: warning W_DENY_UNMATCHED/);
    expect(c.stderr()).toContain("tools.deny entry 'wirte_file' matches no tool");
    expect(c.stderr()).not.toContain("'fs__write_file' matches no tool");
    // Every field but tools.deny matches by the server's own names: said at start, with the fix.
    expect(c.stderr()).toMatch(
      /policy\.yaml:4:\d+: warning W_GATEWAY_NAME .*'fs__move_file' names the tool as serve shows it .*write 'move_file'/,
    );
  });
});
