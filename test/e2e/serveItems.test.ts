// The policy's opt-in resources: and prompts: sections under toolgate serve --stdio, in front of the real
// server-everything, with the official SDK client: denied resources, templates and prompts are absent from
// the lists, and reading, subscribing, getting and completing them is answered as serve answers an unknown
// one; every decision is an audit event with its rule. Rules name the server's own URIs and names.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAudit, type Connected } from "./helpers.js";
import { serveStdio, serveWorld } from "./serveHelpers.js";

let served: Connected;
let auditFile: string;
const Q = "toolgate://everything/";

beforeAll(async () => {
  const world = serveWorld({
    config: "enabled_mcp_servers: [everything]\n",
    files: {
      "policy.yaml": [
        'version: "2.0"',
        "resources:",
        '  deny: ["demo://resource/dynamic/blob/{resourceId}", "demo://resource/static/document/architecture.md"]',
        "prompts:",
        '  deny: ["args-*", "everything__resource-prompt"]',
        "",
      ].join("\n"),
    },
  });
  auditFile = join(world.dir, "audit.jsonl");
  served = await serveStdio(world.dir, [
    "--policy",
    join(world.dir, "policy.yaml"),
    "--audit-log",
    auditFile,
  ]);
});

afterAll(async () => {
  await served?.close();
});

async function allResources(): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await served.client.listResources(cursor === undefined ? {} : { cursor });
    out.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  return out;
}

async function rejection(p: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await p;
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
  throw new Error("expected a rejection");
}

/** A result or an error, whichever the request got. */
async function outcomeOf(p: Promise<unknown>): Promise<unknown> {
  try {
    return { result: await p };
  } catch (error) {
    return { error: { code: (error as { code?: unknown }).code, message: (error as Error).message } };
  }
}

describe("serve: resources under the policy", () => {
  it("a denied resource and a denied template are absent from the lists; the rest stays", async () => {
    const uris = await allResources();
    expect(uris).toContain(`${Q}demo://resource/static/document/features.md`);
    expect(uris).not.toContain(`${Q}demo://resource/static/document/architecture.md`);
    const templates = (await served.client.listResourceTemplates()).resourceTemplates.map(
      (t) => t.uriTemplate,
    );
    expect(templates).toContain(`${Q}demo://resource/dynamic/text/{resourceId}`);
    expect(templates).not.toContain(`${Q}demo://resource/dynamic/blob/{resourceId}`);
  });

  it("reading a denied resource, or a URI a denied template expands to, is answered as an unknown one", async () => {
    const missing = "demo://resource/static/document/no-such.md";
    const unknown = await rejection(served.client.readResource({ uri: `${Q}${missing}` }));
    expect(unknown.message).toContain(missing);
    for (const own of ["demo://resource/static/document/architecture.md", "demo://resource/dynamic/blob/1"]) {
      const denied = await rejection(served.client.readResource({ uri: `${Q}${own}` }));
      expect(denied).toEqual({ code: unknown.code, message: unknown.message.replace(missing, own) });
    }
    const allowed = await served.client.readResource({ uri: `${Q}demo://resource/dynamic/text/1` });
    expect(allowed.contents[0]!.uri).toBe(`${Q}demo://resource/dynamic/text/1`);
  });

  it("subscribing to and completing a denied resource are refused the same way", async () => {
    const uri = `${Q}demo://resource/dynamic/blob/2`;
    const unknownSub = await outcomeOf(served.client.subscribeResource({ uri: `${Q}demo://no-such` }));
    const deniedSub = await outcomeOf(served.client.subscribeResource({ uri }));
    expect(JSON.stringify(deniedSub)).toBe(
      JSON.stringify(unknownSub).replaceAll("demo://no-such", "demo://resource/dynamic/blob/2"),
    );
    const ref = { type: "ref/resource" as const, uri: `${Q}demo://resource/dynamic/blob/{resourceId}` };
    const unknownRef = { type: "ref/resource" as const, uri: `${Q}demo://no-such/{resourceId}` };
    const denied = await rejection(
      served.client.complete({ ref, argument: { name: "resourceId", value: "1" } }),
    );
    const unknown = await rejection(
      served.client.complete({ ref: unknownRef, argument: { name: "resourceId", value: "1" } }),
    );
    expect(denied).toEqual({
      code: unknown.code,
      message: unknown.message.replace(
        "demo://no-such/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
      ),
    });
    const fromText = await served.client.complete({
      ref: { type: "ref/resource", uri: `${Q}demo://resource/dynamic/text/{resourceId}` },
      argument: { name: "resourceId", value: "1" },
    });
    expect(fromText.completion.values).toContain("1");
  });
});

describe("serve: prompts under the policy", () => {
  it("denied prompts are absent (by wildcard, and by their name through the gateway)", async () => {
    const names = (await served.client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toContain("everything__simple-prompt");
    expect(names).not.toContain("everything__args-prompt");
    expect(names).not.toContain("everything__resource-prompt");
  });

  it("getting or completing a denied prompt is answered as an unknown one", async () => {
    const unknown = await rejection(served.client.getPrompt({ name: "everything__no-such-prompt" }));
    const denied = await rejection(
      served.client.getPrompt({ name: "everything__args-prompt", arguments: { city: "x" } }),
    );
    expect(denied.code).toBe(unknown.code);
    expect(denied.message).toBe(unknown.message.replace("no-such-prompt", "args-prompt"));
    const complete = (name: string) =>
      outcomeOf(
        served.client.complete({
          ref: { type: "ref/prompt", name },
          argument: { name: "resourceType", value: "T" },
        }),
      );
    expect(JSON.stringify(await complete("everything__resource-prompt"))).toBe(
      JSON.stringify(await complete("everything__no-such-prompt")).replaceAll(
        "no-such-prompt",
        "resource-prompt",
      ),
    );
    expect(
      (await served.client.getPrompt({ name: "everything__simple-prompt" })).messages.length,
    ).toBeGreaterThan(0);
  });

  it("records every decision with its rule", async () => {
    const events = readAudit(auditFile);
    expect(events).toContainEqual(
      expect.objectContaining({
        event: "resource",
        method: "resources/read",
        name: "demo://resource/dynamic/blob/1",
        decision: "hidden",
        code: "E_RESOURCE_DENIED",
        rule: { layer: "policy", kind: "resources.deny", value: "demo://resource/dynamic/blob/{resourceId}" },
        server: "everything",
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        event: "resource",
        name: "demo://resource/dynamic/text/1",
        decision: "allow",
        code: null,
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        event: "prompt",
        method: "prompts/get",
        name: "args-prompt",
        decision: "hidden",
        code: "E_PROMPT_DENIED",
        rule: { layer: "policy", kind: "prompts.deny", value: "args-*" },
      }),
    );
    const promptList = events.find((e) => e.event === "prompts/list");
    expect(promptList).toMatchObject({ decision: "filtered", hidden: 2 });
    expect(promptList!.hidden_items).toContainEqual({
      name: "resource-prompt",
      code: "E_PROMPT_DENIED",
      rule: { layer: "policy", kind: "prompts.deny", value: "everything__resource-prompt" },
    });
    const templates = events.find((e) => e.event === "resources/templates/list");
    expect(templates).toMatchObject({
      hidden: 1,
      hidden_items: [{ name: "demo://resource/dynamic/blob/{resourceId}" }],
    });
  });
});
