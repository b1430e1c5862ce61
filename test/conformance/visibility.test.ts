// Conformance, on every surface: a tool the policy denies is not shown and its call is answered exactly as a
// tool that does not exist, never reaching the server; a call the argument schema refuses gets the
// structured deny; --dry-run forwards everything and records what would have been done; a session's
// max_tool_calls_total refuses the call after the limit. Against the real server-filesystem.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { outcome } from "../e2e/helpers.js";
import { asListed, denial, gates, SURFACES, type GateClient } from "./surfaces.js";
import { bareTools, fsWorld, type FsWorld } from "./worlds.js";

const POLICY = `version: "2.0"
tools:
  deny: ["write_file"]
schemas:
  create_directory:
    type: object
    additionalProperties: false
    properties: { path: { type: string, pattern: "^/nowhere/" } }
    required: [path]
enforcement: { unconstrained_tools: allow }
`;

let world: FsWorld;
let all: string[];
beforeAll(async () => {
  world = fsWorld();
  all = (await bareTools(world.server)).map((t) => t.name);
  expect(all).toContain("write_file");
});

describe.each(SURFACES)("%s", (surface) => {
  const start = gates();

  describe("a tool denied by the policy, and a call its argument schema refuses", () => {
    let c: GateClient;
    beforeAll(async () => {
      c = await start(surface, { server: world.server, name: "fs", policy: POLICY });
    });

    it("the denied tool is not listed; every other one is", async () => {
      expect(await c.tools()).toEqual(
        asListed(
          c,
          all.filter((n) => n !== "write_file"),
        ),
      );
    });

    it("its call gets exactly the answer of a tool that does not exist, and never reaches the server", async () => {
      const target = join(world.workspace, `hidden-${surface}.txt`);
      const answer = await outcome(c.call("write_file", { path: target, content: "x" }));
      expect(answer).toEqual(await c.absentAnswer("write_file"));
      expect(existsSync(target)).toBe(false);
      expect(c.received("write_file")).toEqual([]);
      expect(c.callEvents("write_file")).toMatchObject([
        { ...c.eventBase, decision: "hidden", code: "E_TOOL_DENIED", rule: { kind: "tools.deny" } },
      ]);
    });

    // Only meta mode has a describe tool; the other surfaces show a tool's definition in tools/list, above.
    it.skipIf(surface !== "serve-meta")(
      "meta mode only (no describe tool elsewhere): describing the denied tool answers as describing a missing one",
      async () => {
        const describe = (tool: string) => c.sdk.callTool({ name: "mcp_describe_fs", arguments: { tool } });
        expect(await outcome(describe("write_file"))).toEqual(await c.absentAnswer("write_file"));
        expect(await outcome(describe("zz-missing-tool"))).toEqual(await c.absentAnswer("zz-missing-tool"));
        expect(c.received()).toEqual([]);
      },
    );

    it("a call the schema refuses gets the structured E_ARG_SCHEMA deny, and the server never sees it", async () => {
      const dir = join(world.workspace, `schema-${surface}`);
      const result = await c.call("create_directory", { path: dir });
      expect(result.isError).toBe(true);
      expect(denial(result).code).toBe("E_ARG_SCHEMA");
      expect(denial(result).text).toContain("/path");
      expect(existsSync(dir)).toBe(false);
      expect(c.received("create_directory")).toEqual([]);
      expect(c.callEvents("create_directory")).toMatchObject([
        { ...c.eventBase, decision: "deny", code: "E_ARG_SCHEMA" },
      ]);
    });

    it("a call inside the schema and a tool the policy leaves alone go through as sent", async () => {
      const read = await c.call("read_text_file", { path: join(world.workspace, "notes.txt") });
      expect(read.content).toEqual([{ type: "text", text: "inside\n" }]);
      expect(c.received("read_text_file")).toEqual([
        { name: "read_text_file", arguments: { path: join(world.workspace, "notes.txt") } },
      ]);
    });
  });

  describe("--dry-run", () => {
    let c: GateClient;
    beforeAll(async () => {
      c = await start(surface, {
        server: world.server,
        name: "fs",
        policy: POLICY.replace("tools:\n", 'tools:\n  approval_required: ["move_file"]\n'),
        flags: ["--dry-run"],
        elicit: () => ({ action: "accept", content: { approve: true } }),
      });
    });

    it("shows every tool and forwards every call; the audit says what enforcement would have done", async () => {
      expect(await c.tools()).toEqual(asListed(c, all));
      const target = join(world.workspace, `dry-${surface}.txt`);
      expect((await c.call("write_file", { path: target, content: "dry\n" })).isError).toBeFalsy();
      expect(readFileSync(target, "utf8")).toBe("dry\n");
      const dir = join(world.workspace, `dry-dir-${surface}`);
      expect((await c.call("create_directory", { path: dir })).isError).toBeFalsy();
      expect(existsSync(dir)).toBe(true);
      // Nobody is asked in a dry run: the call goes through, recorded as the approval it would have needed.
      const moved = join(world.workspace, `dry-moved-${surface}.txt`);
      expect((await c.call("move_file", { source: target, destination: moved })).isError).toBeFalsy();
      expect(existsSync(moved)).toBe(true);
      expect(c.questions).toEqual([]);
      expect(c.received().map((p) => p.name)).toEqual(["write_file", "create_directory", "move_file"]);
      expect(c.callEvents().map((e) => [e.tool, e.decision, e.code])).toEqual([
        ["write_file", "would-hide", "E_TOOL_DENIED"],
        ["create_directory", "would-deny", "E_ARG_SCHEMA"],
        ["move_file", "would-deny", "E_APPROVAL_REQUIRED"],
      ]);
      expect(c.audit().find((e) => e.event === "tools/list")).toMatchObject({
        decision: "would-filter",
        shown: all.length,
        hidden: 1,
        hidden_tools: [{ tool: "write_file", code: "E_TOOL_DENIED" }],
      });
    });
  });

  describe("limits: max_tool_calls_total", () => {
    it("the call after the limit gets E_RATE_LIMIT and does not reach the server", async () => {
      const c = await start(surface, {
        server: world.server,
        name: "fs",
        policy: `version: "2.0"\nenforcement: { unconstrained_tools: allow }\nlimits:\n  max_tool_calls_total: 2\n`,
      });
      const path = join(world.workspace, "notes.txt");
      for (let i = 0; i < 2; i++) expect((await c.call("read_text_file", { path })).isError).toBeFalsy();
      const third = await c.call("read_text_file", { path });
      expect(third.isError).toBe(true);
      expect(denial(third).code).toBe("E_RATE_LIMIT");
      expect(c.received("read_text_file")).toHaveLength(2);
      expect(c.callEvents().map((e) => [e.decision, e.code])).toEqual([
        ["allow", null],
        ["allow", null],
        ["deny", "E_RATE_LIMIT"],
      ]);
    });
  });
});
