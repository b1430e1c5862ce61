// The policy's opt-in resources: and prompts: sections under toolgate wrap, around the real
// server-everything, with the official SDK client: denied resources, templates and prompts are absent from
// the lists, and reading, subscribing, getting and completing them gets exactly the answer the bare server
// gives for one it does not have. Every decision is an audit event with its rule.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  EVERYTHING_SERVER,
  NODE,
  readAudit,
  tempDir,
  wrapCommand,
  writePolicy,
  type Connected,
} from "./helpers.js";

const POLICY = `version: "2.0"
resources:
  deny: ["demo://resource/dynamic/blob/{resourceId}", "demo://resource/static/document/architecture.md"]
prompts:
  allow: ["simple-prompt", "resource-prompt", "completable-*"]
  deny: ["resource-*"]
`;

let bare: Connected;
let wrapped: Connected;
let auditLog: string;

beforeAll(async () => {
  const dir = tempDir();
  const policy = writePolicy(dir, POLICY);
  auditLog = join(dir, "audit.jsonl");
  bare = await connect({ command: NODE, args: [EVERYTHING_SERVER] });
  wrapped = await connect(
    wrapCommand(["--policy", policy, "--audit-log", auditLog], [NODE, EVERYTHING_SERVER]),
  );
});

afterAll(async () => {
  await wrapped?.close();
  await bare?.close();
});

/** A result or an error, whichever the request got, as JSON text. */
async function answer(p: Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify({ result: await p });
  } catch (error) {
    return JSON.stringify({
      error: { code: (error as { code?: unknown }).code, message: (error as Error).message },
    });
  }
}

describe("wrap: resources under the policy", () => {
  it("lists leave out the denied resource and template, and only them", async () => {
    const bareList = (await bare.client.listResources()).resources.map((r) => r.uri);
    const list = (await wrapped.client.listResources()).resources.map((r) => r.uri);
    expect(bareList).toContain("demo://resource/static/document/architecture.md");
    expect(list).toEqual(bareList.filter((u) => u !== "demo://resource/static/document/architecture.md"));
    const templates = (await wrapped.client.listResourceTemplates()).resourceTemplates.map(
      (t) => t.uriTemplate,
    );
    expect(templates).toContain("demo://resource/dynamic/text/{resourceId}");
    expect(templates).not.toContain("demo://resource/dynamic/blob/{resourceId}");
  });

  it("read, subscribe and completion of a denied one answer as the bare server does for an unknown one", async () => {
    for (const uri of ["demo://resource/static/document/architecture.md", "demo://resource/dynamic/blob/1"]) {
      const missing = "demo://no-such-resource";
      const unknown = await answer(bare.client.readResource({ uri: missing }));
      expect(unknown).toContain('"error"');
      expect(await answer(wrapped.client.readResource({ uri }))).toBe(unknown.replaceAll(missing, uri));
      expect(await answer(wrapped.client.subscribeResource({ uri }))).toBe(
        (await answer(bare.client.subscribeResource({ uri: missing }))).replaceAll(missing, uri),
      );
    }
    const complete = (c: Connected, uri: string) =>
      answer(
        c.client.complete({
          ref: { type: "ref/resource", uri },
          argument: { name: "resourceId", value: "1" },
        }),
      );
    const denied = "demo://resource/dynamic/blob/{resourceId}";
    expect(await complete(bare, denied)).toContain("1");
    expect(await complete(wrapped, denied)).toBe(
      (await complete(bare, "demo://no-such/{resourceId}")).replaceAll("demo://no-such/{resourceId}", denied),
    );
    expect(await complete(wrapped, "demo://resource/dynamic/text/{resourceId}")).toBe(
      await complete(bare, "demo://resource/dynamic/text/{resourceId}"),
    );
    const read = await wrapped.client.readResource({ uri: "demo://resource/dynamic/text/1" });
    expect(read.contents[0]!.uri).toBe("demo://resource/dynamic/text/1");
  });
});

describe("wrap: prompts under the policy", () => {
  it("lists only the allowed prompts that no deny entry matches", async () => {
    const names = (await wrapped.client.listPrompts()).prompts.map((p) => p.name).sort();
    expect(names).toEqual(["completable-prompt", "simple-prompt"]);
  });

  it("get and completion of a hidden prompt answer as for an unknown one", async () => {
    for (const name of ["args-prompt", "resource-prompt"]) {
      expect(await answer(wrapped.client.getPrompt({ name, arguments: { city: "x" } }))).toBe(
        (
          await answer(bare.client.getPrompt({ name: "no-such-prompt", arguments: { city: "x" } }))
        ).replaceAll("no-such-prompt", name),
      );
    }
    const complete = (c: Connected, name: string) =>
      answer(
        c.client.complete({
          ref: { type: "ref/prompt", name },
          argument: { name: "resourceType", value: "T" },
        }),
      );
    expect(await complete(wrapped, "resource-prompt")).toBe(
      (await complete(bare, "no-such-prompt")).replaceAll("no-such-prompt", "resource-prompt"),
    );
    expect((await wrapped.client.getPrompt({ name: "simple-prompt" })).messages.length).toBeGreaterThan(0);
  });

  it("records each decision with its rule", async () => {
    const events = readAudit(auditLog);
    expect(events).toContainEqual(
      expect.objectContaining({
        event: "prompt",
        method: "prompts/get",
        name: "args-prompt",
        decision: "hidden",
        code: "E_PROMPT_NOT_ALLOWED",
        rule: { layer: "policy", kind: "prompts.allow", value: "(no entry matches)" },
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        event: "resource",
        method: "resources/subscribe",
        name: "demo://resource/dynamic/blob/1",
        decision: "hidden",
        code: "E_RESOURCE_DENIED",
      }),
    );
    expect(events.find((e) => e.event === "resources/list")).toMatchObject({
      decision: "filtered",
      hidden: 1,
      hidden_items: [
        {
          name: "demo://resource/static/document/architecture.md",
          code: "E_RESOURCE_DENIED",
          rule: {
            layer: "policy",
            kind: "resources.deny",
            value: "demo://resource/static/document/architecture.md",
          },
        },
      ],
    });
  });
});

describe("wrap --dry-run: resources and prompts decided and recorded, everything forwarded", () => {
  let dry: Connected;
  let dryLog: string;
  beforeAll(async () => {
    const dir = tempDir();
    dryLog = join(dir, "audit.jsonl");
    dry = await connect(
      wrapCommand(
        ["--policy", writePolicy(dir, POLICY), "--audit-log", dryLog, "--dry-run"],
        [NODE, EVERYTHING_SERVER],
      ),
    );
  });
  afterAll(async () => {
    await dry?.close();
  });

  it("lists and reads what the policy denies, and the audit log says what enforcement would have done", async () => {
    const uri = "demo://resource/static/document/architecture.md";
    expect((await dry.client.listResources()).resources.map((r) => r.uri)).toContain(uri);
    expect((await dry.client.listPrompts()).prompts.map((p) => p.name)).toContain("args-prompt");
    const read = await dry.client.readResource({ uri });
    expect(read.contents[0]!.uri).toBe(uri);
    const events = readAudit(dryLog);
    expect(events).toContainEqual(
      expect.objectContaining({
        event: "resource",
        method: "resources/read",
        name: uri,
        decision: "would-hide",
        code: "E_RESOURCE_DENIED",
      }),
    );
    expect(events.filter((e) => e.decision === "hidden")).toEqual([]);
  });
});
