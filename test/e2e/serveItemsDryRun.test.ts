// The policy's resources: and prompts: sections under `toolgate serve --stdio --dry-run`, in front of the
// real server-everything and server-filesystem, with the official SDK client: everything a section denies is
// still listed, read and got (nothing is hidden), and the audit log says what enforcement would have done.
// server-filesystem offers tools only (no resources, no prompts): sections that deny every resource and
// prompt leave its tools list and its tool calls exactly as without them.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAudit, type Connected } from "./helpers.js";
import { serveStdio, serveWorld } from "./serveHelpers.js";

const Q = "toolgate://everything/";
const SECTIONS = [
  "resources:",
  '  deny: ["demo://resource/dynamic/blob/{resourceId}", "demo://resource/static/document/architecture.md", "file:///*"]',
  "prompts:",
  '  deny: ["args-*", "everything__resource-prompt", "fs__*"]',
].join("\n");

let world: ReturnType<typeof serveWorld>;
let dry: Connected;
let bare: Connected;
let enforced: Connected;
let dryLog: string;

beforeAll(async () => {
  world = serveWorld({
    config: "enabled_mcp_servers: [everything, fs]\n",
    files: {
      "items.yaml": `version: "2.0"\n${SECTIONS}\n`,
      "none.yaml": 'version: "2.0"\n',
    },
  });
  dryLog = join(world.dir, "dry.jsonl");
  const policy = (name: string) => ["--policy", join(world.dir, name)];
  [dry, bare, enforced] = await Promise.all([
    serveStdio(world.dir, [...policy("items.yaml"), "--audit-log", dryLog, "--dry-run"]),
    serveStdio(world.dir, policy("none.yaml")),
    serveStdio(world.dir, policy("items.yaml")),
  ]);
});

afterAll(async () => {
  await Promise.all([dry?.close(), bare?.close(), enforced?.close()]);
});

async function allResources(c: Connected): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await c.client.listResources(cursor === undefined ? {} : { cursor });
    out.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  return out;
}

describe("serve --dry-run: resources and prompts decided and recorded, nothing hidden", () => {
  it("lists, reads and gets what the sections deny, as without them", async () => {
    const denied = `${Q}demo://resource/static/document/architecture.md`;
    expect(await allResources(dry)).toEqual(await allResources(bare));
    expect(await allResources(dry)).toContain(denied);
    expect(await allResources(enforced)).not.toContain(denied);
    const templates = (await dry.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain(`${Q}demo://resource/dynamic/blob/{resourceId}`);
    const prompts = (await dry.client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toContain("everything__args-prompt");
    expect(prompts).toContain("everything__resource-prompt");
    expect((await dry.client.readResource({ uri: denied })).contents[0]!.uri).toBe(denied);
    const blob = `${Q}demo://resource/dynamic/blob/3`;
    expect((await dry.client.readResource({ uri: blob })).contents[0]!.uri).toBe(blob);
    const got = await dry.client.getPrompt({ name: "everything__args-prompt", arguments: { city: "Oslo" } });
    expect(JSON.stringify(got.messages)).toContain("Oslo");
  });

  it("the audit log says what enforcement would have hidden, with the rule, and hides nothing", async () => {
    const events = readAudit(dryLog);
    expect(events).toContainEqual(
      expect.objectContaining({
        event: "resource",
        method: "resources/read",
        name: "demo://resource/dynamic/blob/3",
        decision: "would-hide",
        code: "E_RESOURCE_DENIED",
        rule: { layer: "policy", kind: "resources.deny", value: "demo://resource/dynamic/blob/{resourceId}" },
        server: "everything",
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        event: "prompt",
        method: "prompts/get",
        name: "args-prompt",
        decision: "would-hide",
        code: "E_PROMPT_DENIED",
        rule: { layer: "policy", kind: "prompts.deny", value: "args-*" },
      }),
    );
    const lists = events.filter((e) => e.event === "prompts/list");
    expect(lists.length).toBeGreaterThan(0);
    expect(lists[0]).toMatchObject({ decision: "would-filter", hidden: 2 });
    expect(events.filter((e) => e.decision === "hidden" || e.decision === "filtered")).toEqual([]);
  });
});

describe("server-filesystem (tools only) under sections that deny every file:// resource and fs prompt", () => {
  it("its tools are listed and called exactly as without the sections", async () => {
    const fsTools = async (c: Connected) =>
      (await c.client.listTools()).tools.filter((t) => t.name.startsWith("fs__")).map((t) => t.name);
    const listed = await fsTools(enforced);
    expect(listed).toEqual(await fsTools(bare));
    expect(listed).toContain("fs__read_text_file");
    // resources: rules gate resources, not tools: the file is read through the tool.
    const read = await enforced.client.callTool({
      name: "fs__read_text_file",
      arguments: { path: join(world.fsRoot, "hello.txt") },
    });
    expect(read.isError).not.toBe(true);
    expect(JSON.stringify(read.content)).toContain("hello from the served directory");
  });
});
