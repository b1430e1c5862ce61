// Which server wrap's pins are bound to: --server, else --label, else the only server the pins name; pins
// naming several servers without either is a start-up error. The server's own name plays no part.
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { pinnedServers, pinServer } from "../../../src/cli/wrapPinServer.js";

const pin = (key: string, server?: string) =>
  `  ${key}:\n${server === undefined ? "" : `    server_id: ${server}\n`}    tool_name: ${key}\n    schema_hash: "${"1".repeat(64)}"\n    meta_hash: "${"2".repeat(64)}"\n`;
const policyOf = (...pins: string[]) => {
  const { policy } = loadPolicyText("p.yaml", `version: "2.0"\ntool_pins:\n${pins.join("")}`);
  if (policy === null) throw new Error("policy does not load");
  return policy;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("pinServer", () => {
  const one = policyOf(pin("read_file", "filesystem-prod"), pin("write_file", "filesystem-prod"), pin("cat"));
  const two = policyOf(pin("read_file", "fs"), pin("search", "github"));

  it("lists the servers the pins name, each once", () => {
    expect(pinnedServers(one)).toEqual(["filesystem-prod"]);
    expect(pinnedServers(two)).toEqual(["fs", "github"]);
    expect(pinnedServers(null)).toEqual([]);
  });

  it("--server wins, then --label; neither is 'from the pins'", () => {
    expect(pinServer({ server: "fs", label: "run-1" }, two, "p.yaml")).toEqual({
      serverId: "fs",
      fromPins: false,
    });
    expect(pinServer({ label: "github" }, two, "p.yaml")).toEqual({ serverId: "github", fromPins: false });
  });

  it("without a flag: the only server the pins name, or none when they name none", () => {
    expect(pinServer({}, one, "p.yaml")).toEqual({ serverId: "filesystem-prod", fromPins: true });
    expect(pinServer({}, policyOf(pin("cat")), "p.yaml")).toEqual({ fromPins: false });
    expect(pinServer({}, null, undefined)).toEqual({ fromPins: false });
  });

  it("pins naming several servers and no flag: E_PIN_SERVER on stderr, null", () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    expect(pinServer({}, two, "p.yaml")).toBeNull();
    expect(written.join("")).toBe(
      "toolgate: error E_PIN_SERVER: the tool_pins of p.yaml name 2 servers ('fs', 'github'), and wrap runs one: " +
        "it cannot tell which pins are this server's; the server was not started\n" +
        "  hint: pass --label <server_id> (or --server <name>) to say which server this is, e.g. --label fs; " +
        "the name a server gives itself is never used to choose its pins\n",
    );
  });
});
