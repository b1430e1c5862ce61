// Conformance, on every surface: tool_pins against the real server-everything (server_id: the name the
// surface gives the server — wrap's --label, serve's mcp.json entry). A tool matching its pin is shown and
// callable; one that does not, or has no pin under unpinned_tools: deny, is withheld and answered exactly as
// a tool that does not exist, never reaching the server; denied_tools: explain says E_TOOL_DRIFT instead; a
// pin whose tool the server no longer lists is warned about.
import { beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { FIXTURES, NODE, outcome } from "../e2e/helpers.js";
import { asListed, denial, gates, SURFACES } from "./surfaces.js";
import { bareTools, EVERYTHING, pinsYaml, type ListedTool } from "./worlds.js";

const NAME = "everything";
/** A server whose `tighten` tool changes echo's inputSchema and announces tools/list_changed. */
const DRIFT = [NODE, join(FIXTURES, "driftServer.mjs")];
let tools: ListedTool[];
let names: string[];
let driftTools: ListedTool[];
beforeAll(async () => {
  driftTools = await bareTools(DRIFT);
  tools = await bareTools(EVERYTHING);
  names = tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-env"]));
});
const policy = (pins: string, enforcement = "") =>
  `version: "2.0"\ntool_pins:\n${pins}enforcement: { unconstrained_tools: allow${enforcement} }\n`;
const some = (...wanted: string[]) => tools.filter((t) => wanted.includes(t.name));

describe.each(SURFACES)("%s", (surface) => {
  const start = gates();
  const gate = (policyYaml: string) => start(surface, { server: EVERYTHING, name: NAME, policy: policyYaml });

  it("correct pins: every tool is visible and callable, even with unpinned tools denied", async () => {
    const c = await gate(policy(pinsYaml(NAME, tools), ", unpinned_tools: deny"));
    expect(await c.tools()).toEqual(asListed(c, names));
    expect(await c.call("echo", { message: "pinned" })).toMatchObject({
      content: [{ type: "text", text: "Echo: pinned" }],
    });
    expect(c.received("echo")).toEqual([{ name: "echo", arguments: { message: "pinned" } }]);
  });

  it("a wrong hash withholds the tool, checked before the first call even when the client never listed; its call never reaches the server", async () => {
    const c = await gate(policy(pinsYaml(NAME, tools, "echo")));
    expect(await outcome(c.call("echo", { message: "x" }))).toEqual(await c.absentAnswer("echo"));
    expect(await c.tools()).toEqual(
      asListed(
        c,
        names.filter((n) => n !== "echo"),
      ),
    );
    expect(await outcome(c.call("echo", { message: "y" }))).toEqual(await c.absentAnswer("echo"));
    expect(c.received("echo")).toEqual([]);
    expect(c.callEvents("echo")).toMatchObject([
      { ...c.eventBase, decision: "hidden", code: "E_TOOL_DRIFT", rule: { kind: "tool_pins" } },
      { ...c.eventBase, decision: "hidden", code: "E_TOOL_DRIFT", rule: { kind: "tool_pins" } },
    ]);
    await expect.poll(() => c.stderr()).toContain("withholding tool 'echo' (E_TOOL_DRIFT)");
  });

  it("unpinned_tools: deny withholds every tool without a pin", async () => {
    const c = await gate(policy(pinsYaml(NAME, some("echo", "get-sum")), ", unpinned_tools: deny"));
    expect(await c.tools()).toEqual(asListed(c, ["echo", "get-sum"]));
    expect(await outcome(c.call("get-env", {}))).toEqual(await c.absentAnswer("get-env"));
    expect(c.received("get-env")).toEqual([]);
    expect(c.callEvents("get-env")).toMatchObject([
      {
        ...c.eventBase,
        decision: "hidden",
        code: "E_TOOL_DRIFT",
        rule: { kind: "enforcement.unpinned_tools" },
      },
    ]);
  });

  it("a wrong hash and unpinned_tools: deny together: one tool shown, the list event counts the rest hidden", async () => {
    const c = await gate(policy(pinsYaml(NAME, some("echo", "get-sum"), "echo"), ", unpinned_tools: deny"));
    expect(await c.tools()).toEqual(["get-sum"]);
    for (const tool of ["echo", "get-env"]) {
      expect(await outcome(c.call(tool, { message: "x" }))).toEqual(await c.absentAnswer(tool));
    }
    expect(c.received()).toEqual([]);
    expect(
      c.callEvents().map((e) => [e.tool, e.decision, e.code, (e.rule as { kind: string }).kind]),
    ).toEqual([
      ["echo", "hidden", "E_TOOL_DRIFT", "tool_pins"],
      ["get-env", "hidden", "E_TOOL_DRIFT", "enforcement.unpinned_tools"],
    ]);
    const listed = c.audit().find((e) => e.event === "tools/list");
    // Only serve names the server in its events (wrap has one).
    expect(listed?.server).toBe(c.surface.startsWith("wrap") ? undefined : NAME);
    expect(listed).toMatchObject({
      decision: "filtered",
      shown: 1,
      hidden: names.length - 1,
    });
  });

  it("with denied_tools: explain, the drifted tool's call gets the structured E_TOOL_DRIFT deny", async () => {
    const c = await gate(policy(pinsYaml(NAME, tools, "echo"), ", denied_tools: explain"));
    const result = await c.call("echo", { message: "x" });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "deny", error_code: "E_TOOL_DRIFT" });
    expect(denial(result).text).toContain("inputSchema changed");
    expect(c.received("echo")).toEqual([]);
    expect(c.callEvents("echo")).toMatchObject([{ ...c.eventBase, decision: "deny", code: "E_TOOL_DRIFT" }]);
  });

  it("warns about a pin whose tool the server no longer lists, and shows the tools it does", async () => {
    const gone = `  renamed:\n    server_id: ${NAME}\n    tool_name: echo-old\n    schema_hash: "${"1".repeat(64)}"\n    meta_hash: "${"1".repeat(64)}"\n`;
    const c = await gate(policy(gone));
    expect(await c.tools()).toEqual(asListed(c, names));
    await expect
      .poll(() => c.stderr())
      .toContain(
        `tool_pins.renamed pins tool 'echo-old' of server '${NAME}', which the server '${NAME}' no longer lists`,
      );
  });

  it("a tool that drifts after it was shown is withheld from the next list, and its call is denied with E_TOOL_DRIFT", async () => {
    const c = await start(surface, {
      server: DRIFT,
      name: "drift",
      policy: policy(pinsYaml("drift", driftTools)),
    });
    expect(await c.tools()).toEqual(["echo", "tighten"]);
    expect(await c.call("echo", { message: "hello" })).toMatchObject({
      content: [{ type: "text", text: "echo: hello" }],
    });
    expect((await c.call("tighten", {})).isError).toBeFalsy();
    await expect.poll(() => c.toolsChanged()).toBe(c.passesListChanged ? 1 : 0);

    const result = await c.call("echo", { message: "again" });
    expect(result.isError).toBe(true);
    expect(denial(result).code).toBe("E_TOOL_DRIFT");
    expect(denial(result).text).toContain("inputSchema changed");
    expect(await c.tools()).toEqual(["tighten"]);
    expect(c.received("echo")).toEqual([{ name: "echo", arguments: { message: "hello" } }]);
    expect(c.callEvents("echo").map((e) => [e.decision, e.code])).toEqual([
      ["allow", null],
      ["deny", "E_TOOL_DRIFT"],
    ]);
  });
});
