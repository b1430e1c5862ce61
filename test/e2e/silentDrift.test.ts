// A server that changes a pinned tool without announcing it (no list_changed): the next list shows the
// drift, and from then on the tool's calls are refused too, on wrap and serve. Pins written for a name the
// surface does not know the server by still hold its tools, and that is reported.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES, NODE } from "../e2e/helpers.js";
import { bareTools, pinsYaml } from "../conformance/worlds.js";
import { denial, gates, SURFACES } from "../conformance/surfaces.js";

const DRIFT = [NODE, join(FIXTURES, "driftServer.mjs")];

describe.each(SURFACES)("%s: silent drift", (surface) => {
  const start = gates();
  it("a re-list withholds the drifted tool, and its call is refused from then on", async () => {
    const tools = await bareTools(DRIFT);
    const c = await start(surface, {
      server: DRIFT,
      name: "drift",
      env: { DRIFT_SILENT: "1" },
      policy: `version: "2.0"\ntool_pins:\n${pinsYaml("drift", tools)}enforcement:\n  unconstrained_tools: allow\n  denied_tools: explain\n`,
    });
    expect(await c.tools()).toEqual(["echo", "tighten"]);
    expect((await c.call("tighten", {})).isError).toBeFalsy();
    expect(await c.tools()).toEqual(["tighten"]);
    const result = await c.call("echo", { message: "after" });
    expect(denial(result).code).toBe("E_TOOL_DRIFT");
    expect(c.received("echo")).toEqual([]);
  });
});

describe.each(SURFACES)("%s: a server known by another name than its pins", (surface) => {
  const start = gates();
  it("the pins still hold its tools (W_PIN_SERVER says so), and a drifted one is withheld", async () => {
    const tools = await bareTools(DRIFT);
    const c = await start(surface, {
      server: DRIFT,
      name: "other-name",
      env: { DRIFT_NAME: "other-name", DRIFT_SILENT: "1" },
      policy: `version: "2.0"\ntool_pins:\n${pinsYaml("drift", tools)}enforcement:\n  unconstrained_tools: allow\n  unpinned_tools: deny\n`,
    });
    expect(await c.tools()).toEqual(["echo", "tighten"]);
    await expect
      .poll(() => c.stderr())
      .toContain(
        "names server 'drift', which toolgate does not serve here; it holds tool 'echo' of server 'other-name'",
      );
    expect((await c.call("tighten", {})).isError).toBeFalsy();
    expect(await c.tools()).toEqual(["tighten"]);
    expect(c.received("echo")).toEqual([]);
  });
});
