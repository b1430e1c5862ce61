// toolgate serve --stdio, direct mode, in front of server-everything, server-filesystem and server-memory at
// once, with the official SDK client: naming, hidden tools (never reaching the server), resources, prompts,
// completion, logging, progress, sampling, elicitation, roots, and the audit log.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { readAudit, type Connected } from "./helpers.js";
import { serveStdio, serveWorld, textOf, until, type ServeWorld, type ToolText } from "./serveHelpers.js";

let world: ServeWorld;
let served: Connected;
let auditFile: string;
const logMessages: Array<{ level: string; logger?: string; data: unknown }> = [];
const updated: string[] = [];

beforeAll(async () => {
  world = serveWorld({
    files: {
      "policy.yaml": [
        'version: "2.0"',
        "tools:",
        "  deny: [get-env]",
        "schemas:",
        "  write_file:",
        "    type: object",
        "    properties:",
        "      path: { type: string, pattern: '^[^.]*\\.txt$' }",
        "      content: { type: string, maxLength: 100 }",
        "    required: [path, content]",
        "  echo:",
        "    type: object",
        "    properties:",
        "      message: { type: string, maxLength: 10 }",
        "",
      ].join("\n"),
    },
  });
  auditFile = join(world.dir, "audit.jsonl");
  served = await serveStdio(
    world.dir,
    ["--policy", join(world.dir, "policy.yaml"), "--audit-log", auditFile],
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
    (client) => {
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        role: "assistant",
        model: "e2e-model",
        content: { type: "text", text: `sampled: ${JSON.stringify(request.params.messages[0]?.content)}` },
      }));
      client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: "accept",
        content: {
          name: "E2E",
          check: true,
          firstLine: "e2e line",
          integer: 7,
          number: 1.5,
          untitledSingleSelectEnum: "option1",
        },
      }));
      client.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: [{ uri: `file://${world.fsRoot}`, name: "served root" }],
      }));
      client.setNotificationHandler(
        ResourceUpdatedNotificationSchema,
        (n) => void updated.push(n.params.uri),
      );
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logMessages.push(n.params as { level: string; logger?: string; data: unknown });
      });
    },
  );
});

afterAll(async () => {
  await served?.close();
});

describe("serve --stdio, direct mode", () => {
  it("lists the visible tools of every enabled server as <server>__<tool>", async () => {
    const names = (await served.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("everything__echo");
    expect(names).toContain("everything__trigger-sampling-request");
    expect(names).toContain("fs__read_text_file");
    expect(names).toContain("fs__write_file");
    expect(names).toContain("memory__read_graph");
    // Hidden by mcp.json allowedTools (fs), config.yaml mcp_tools (memory) and the policy (get-env).
    for (const hidden of [
      "fs__edit_file",
      "fs__move_file",
      "fs__create_directory",
      "memory__create_entities",
      "everything__get-env",
    ]) {
      expect(names).not.toContain(hidden);
    }
    expect(names.every((n) => /^(everything|fs|memory)__/.test(n))).toBe(true);
  });

  it("calls visible tools on the right server", async () => {
    expect(await served.client.callTool({ name: "everything__echo", arguments: { message: "hi" } })).toEqual({
      content: [{ type: "text", text: "Echo: hi" }],
    });
    const read = await served.client.callTool({
      name: "fs__read_text_file",
      arguments: { path: join(world.fsRoot, "hello.txt") },
    });
    expect(textOf(read)).toBe("hello from the served directory\n");
    expect(textOf(await served.client.callTool({ name: "memory__read_graph", arguments: {} }))).toContain(
      '"entities": []',
    );
  });

  it("answers hidden and missing tools alike, and the servers never see them", async () => {
    const unknown = (name: string) => ({
      content: [{ type: "text", text: `MCP error -32602: Tool ${name} not found` }],
      isError: true,
    });
    const entities = { entities: [{ name: "Mallory", entityType: "person", observations: ["was here"] }] };
    expect(await served.client.callTool({ name: "memory__create_entities", arguments: entities })).toEqual(
      unknown("memory__create_entities"),
    );
    const dir = join(world.fsRoot, "made-by-a-hidden-tool");
    expect(await served.client.callTool({ name: "fs__create_directory", arguments: { path: dir } })).toEqual(
      unknown("fs__create_directory"),
    );
    expect(await served.client.callTool({ name: "everything__get-env", arguments: {} })).toEqual(
      unknown("everything__get-env"),
    );
    expect(await served.client.callTool({ name: "fs__no_such_tool", arguments: {} })).toEqual(
      unknown("fs__no_such_tool"),
    );
    expect(await served.client.callTool({ name: "github__get_issue", arguments: {} })).toEqual(
      unknown("github__get_issue"),
    );
    // Nothing happened on the servers: no entity in the graph (nor a graph file), no directory.
    expect(textOf(await served.client.callTool({ name: "memory__read_graph", arguments: {} }))).not.toContain(
      "Mallory",
    );
    expect(existsSync(world.memoryFile)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it("denies a visible call that breaks the policy with the structured deny, and nothing is written", async () => {
    const path = join(world.fsRoot, "notes.md");
    const result = (await served.client.callTool({
      name: "fs__write_file",
      arguments: { path, content: "x" },
    })) as ToolText;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Blocked by policy: E_ARG_SCHEMA /);
    // write_file declares an outputSchema, which SDK clients check structuredContent against even on errors.
    const listed = (await served.client.listTools()).tools.find((t) => t.name === "fs__write_file");
    expect(listed?.outputSchema).toBeDefined();
    expect(result.structuredContent).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    const echo = (await served.client.callTool({
      name: "everything__echo",
      arguments: { message: "far too long" },
    })) as ToolText;
    expect(echo.isError).toBe(true);
    expect(echo.structuredContent).toMatchObject({
      status: "deny",
      error_code: "E_ARG_SCHEMA",
      tool: "echo",
      violations: [{ path: "/message" }],
    });
    const ok = join(world.fsRoot, "notes.txt");
    await served.client.callTool({ name: "fs__write_file", arguments: { path: ok, content: "allowed" } });
    expect(readFileSync(ok, "utf8")).toBe("allowed");
  });

  it("pages resources across servers as toolgate:// URIs and reads them back", async () => {
    const first = await served.client.listResources();
    expect(first.resources.length).toBeGreaterThan(0);
    expect(first.resources.every((r) => r.uri.startsWith("toolgate://everything/"))).toBe(true);
    const all = [...first.resources];
    let cursor = first.nextCursor;
    for (let i = 0; cursor !== undefined && i < 50; i++) {
      const page = await served.client.listResources({ cursor });
      all.push(...page.resources);
      cursor = page.nextCursor;
    }
    expect(cursor).toBeUndefined();
    expect(new Set(all.map((r) => r.uri)).size).toBe(all.length);
    const read = await served.client.readResource({ uri: all[0]!.uri });
    expect(read.contents[0]!.uri).toBe(all[0]!.uri);
    await expect(
      served.client.readResource({ uri: "demo://resource/static/document/architecture.md" }),
    ).rejects.toThrow(/Resource demo:\/\/resource\/static\/document\/architecture.md not found/);
  });

  it("lists resource templates and reads an expanded template URI", async () => {
    const templates = (await served.client.listResourceTemplates()).resourceTemplates;
    const text = templates.find(
      (t) => t.uriTemplate === "toolgate://everything/demo://resource/dynamic/text/{resourceId}",
    );
    expect(text).toBeDefined();
    const read = await served.client.readResource({
      uri: "toolgate://everything/demo://resource/dynamic/text/3",
    });
    expect(read.contents[0]).toMatchObject({
      uri: "toolgate://everything/demo://resource/dynamic/text/3",
      mimeType: "text/plain",
    });
  });

  it("subscribes to a resource and forwards its updates under the toolgate:// URI", async () => {
    const uri = "toolgate://everything/demo://resource/dynamic/text/1";
    await served.client.subscribeResource({ uri });
    await served.client.callTool({ name: "everything__toggle-subscriber-updates", arguments: {} });
    try {
      await until(() => updated.includes(uri), 20_000);
    } finally {
      await served.client.callTool({ name: "everything__toggle-subscriber-updates", arguments: {} });
      await served.client.unsubscribeResource({ uri });
    }
    expect(updated.every((u) => u.startsWith("toolgate://everything/"))).toBe(true);
  });

  it("rewrites resource links and embedded resources in tool results", async () => {
    const links = (await served.client.callTool({
      name: "everything__get-resource-links",
      arguments: { count: 2 },
    })) as ToolText;
    const uris = links.content
      .filter((c) => c.type === "resource_link")
      .map((c) => (c as unknown as { uri: string }).uri);
    expect(uris).toEqual([
      "toolgate://everything/demo://resource/dynamic/blob/1",
      "toolgate://everything/demo://resource/dynamic/text/2",
    ]);
    const read = await served.client.readResource({ uri: uris[1]! });
    expect(read.contents[0]!.uri).toBe(uris[1]);
  });

  it("lists prompts as <server>__<prompt>, gets them, and completes their arguments", async () => {
    const prompts = (await served.client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(
      expect.arrayContaining(["everything__simple-prompt", "everything__resource-prompt"]),
    );
    const got = await served.client.getPrompt({
      name: "everything__args-prompt",
      arguments: { city: "Lyon" },
    });
    expect(JSON.stringify(got.messages)).toContain("Lyon");
    const withResource = await served.client.getPrompt({
      name: "everything__resource-prompt",
      arguments: { resourceType: "Text", resourceId: "1" },
    });
    expect(JSON.stringify(withResource.messages)).toContain(
      "toolgate://everything/demo://resource/dynamic/text/1",
    );
    const completion = await served.client.complete({
      ref: { type: "ref/prompt", name: "everything__completable-prompt" },
      argument: { name: "department", value: "E" },
    });
    expect(completion.completion.values).toEqual(["Engineering"]);
    const fromTemplate = await served.client.complete({
      ref: { type: "ref/resource", uri: "toolgate://everything/demo://resource/dynamic/text/{resourceId}" },
      argument: { name: "resourceId", value: "1" },
    });
    expect(fromTemplate.completion.values).toContain("1");
    await expect(served.client.getPrompt({ name: "simple-prompt" })).rejects.toThrow(
      /Prompt simple-prompt not found/,
    );
  });

  it("passes progress through under the client's token", async () => {
    const progress: number[] = [];
    const result = await served.client.callTool(
      { name: "everything__trigger-long-running-operation", arguments: { duration: 2, steps: 4 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(textOf(result)).toContain("Long running operation completed");
    // The SDK client hands a notification to its handler a microtask later, and forgets the handler once
    // the answer is read: progress read together with the answer (one read on a loaded machine takes
    // several) is dropped by the client. What arrives is the first steps, in order.
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress).toEqual([1, 2, 3, 4].slice(0, progress.length));
  });

  it("forwards sampling, elicitation and roots requests to this client and the answers back", async () => {
    const sampled = await served.client.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "say hi", maxTokens: 10 },
    });
    expect(textOf(sampled)).toContain("sampled:");
    expect(textOf(sampled)).toContain("say hi");
    const elicited = await served.client.callTool({
      name: "everything__trigger-elicitation-request",
      arguments: {},
    });
    expect(textOf(elicited)).toContain("E2E");
    const roots = await served.client.callTool({ name: "everything__get-roots-list", arguments: {} });
    expect(textOf(roots)).toContain(world.fsRoot);
    // server-filesystem takes its allowed directories from the client's roots.
    const allowed = await served.client.callTool({ name: "fs__list_allowed_directories", arguments: {} });
    expect(textOf(allowed)).toContain(world.fsRoot);
  });

  it("sets the log level on the servers and forwards their log messages, named by server", async () => {
    await served.client.setLoggingLevel("debug");
    await served.client.callTool({ name: "everything__toggle-simulated-logging", arguments: {} });
    const message = await until(() => logMessages.find((m) => m.logger?.startsWith("everything")), 15_000);
    expect(message.logger).toMatch(/^everything(\/|$)/);
    await served.client.callTool({ name: "everything__toggle-simulated-logging", arguments: {} });
  });

  it("writes an audit event per list and call with session, server and client", () => {
    const events = readAudit(auditFile);
    const hidden = events.find((e) => e.event === "tools/call" && e.tool === "create_entities");
    expect(hidden).toMatchObject({ decision: "hidden", server: "memory", client: "stdio" });
    expect(typeof hidden!.session).toBe("string");
    const denied = events.find((e) => e.event === "tools/call" && e.code === "E_ARG_SCHEMA");
    expect(denied).toMatchObject({ decision: "deny", server: "fs", tool: "write_file" });
    const list = events.find((e) => e.event === "tools/list" && e.server === "memory");
    expect(list).toMatchObject({ decision: "filtered" });
    expect((list!.hidden_tools as Array<{ tool: string }>).map((h) => h.tool)).toContain("create_entities");
    expect(events.find((e) => e.event === "tools/call" && e.tool === "echo")).toMatchObject({
      decision: "allow",
      server: "everything",
    });
    // Never the raw arguments.
    expect(readFileSync(auditFile, "utf8")).not.toContain("Mallory");
  });
});
