// Conformance: two principals of one gate, on every surface that serves more than one (serve --http, both
// eras; the stdio surfaces serve exactly one client, their one principal, so there is nothing to split).
// Limits count per principal; an approval artifact bound to a principal approves only that principal's
// calls; a server shared per principal (the default) is one process each, and what one principal's call
// writes is not the other's. Against the real server-filesystem behind the recording shim.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  denial,
  gates,
  manyPrincipals,
  SURFACES,
  type GateClient,
  type PrincipalClient,
} from "./surfaces.js";
import { approvalKeyFile, fsWorld, signedArtifact, type FsWorld } from "./worlds.js";

let world: FsWorld;
beforeAll(() => {
  world = fsWorld();
});

describe.each(SURFACES.filter(manyPrincipals))("%s: two principals", (surface) => {
  const start = gates();

  describe("limits", () => {
    let c: GateClient;
    let other: PrincipalClient;
    beforeAll(async () => {
      c = await start(surface, {
        server: world.server,
        name: "fs",
        others: ["other"],
        policy:
          'version: "2.0"\nenforcement: { unconstrained_tools: allow }\nlimits: { max_tool_calls_total: 2 }\n',
      });
      other = await c.as("other");
    });

    it("count per principal: one principal at its limit leaves the other's calls", async () => {
      for (let i = 0; i < 2; i++) expect((await c.call("list_allowed_directories", {})).isError).toBeFalsy();
      expect(denial(await c.call("list_allowed_directories", {})).code).toBe("E_RATE_LIMIT");
      expect((await other.call("list_allowed_directories", {})).isError).toBeFalsy();
      expect(c.callEvents("list_allowed_directories").map((e) => [e.principal, e.decision])).toEqual([
        ["token", "allow"],
        ["token", "allow"],
        ["token", "deny"],
        ["other", "allow"],
      ]);
      await other.close();
    });
  });

  describe("an approval artifact bound to a principal", () => {
    let c: GateClient;
    let other: PrincipalClient;
    const target = (who: string) => join(world.workspace, `bound-${who}-${surface}.txt`);
    beforeAll(async () => {
      c = await start(surface, {
        server: world.server,
        name: "fs",
        others: ["other"],
        flags: ["--approval-key", approvalKeyFile()],
        policy:
          'version: "2.0"\ntools:\n  approval_required: ["write_file"]\nenforcement: { unconstrained_tools: allow }\n',
      });
      other = await c.as("other");
    });

    it("approves that principal's call and not another's", async () => {
      const forOther = (path: string) => signedArtifact("write_file", path, { bound_principal: "other" });
      const stolen = await c.call(
        "write_file",
        { path: target("token"), content: "x" },
        {
          approval: forOther(target("token")),
        },
      );
      expect(denial(stolen)).toMatchObject({ code: "E_APPROVAL_REQUIRED" });
      expect(denial(stolen).text).toContain("the approval is for the calls of 'other', not of token");
      const own = await other.call(
        "write_file",
        { path: target("other"), content: "mine" },
        {
          approval: forOther(target("other")),
        },
      );
      expect(own.isError).toBeFalsy();
      expect(readFileSync(target("other"), "utf8")).toBe("mine");
      expect(c.received("write_file").map((p) => (p.arguments as { path: string }).path)).toEqual([
        target("other"),
      ]);
      await other.close();
    });
  });

  describe("a server shared per principal", () => {
    let c: GateClient;
    let other: PrincipalClient;
    beforeAll(async () => {
      c = await start(surface, {
        server: world.server,
        name: "fs",
        others: ["other"],
        policy: 'version: "2.0"\nenforcement: { unconstrained_tools: allow }\n',
      });
      other = await c.as("other");
    });

    it("runs one process for each principal, and each principal's calls reach the server as its own", async () => {
      expect(await c.tools()).toContain("read_text_file");
      expect(await other.tools()).toContain("read_text_file");
      // One recording shim (with the real server under it) for each principal.
      expect(c.serverProcesses()).toBe(2);
      const read = await other.call("read_text_file", { path: join(world.workspace, "notes.txt") });
      expect(read.isError).toBeFalsy();
      expect(c.callEvents("read_text_file").map((e) => e.principal)).toEqual(["other"]);
      await other.close();
    });
  });
});
