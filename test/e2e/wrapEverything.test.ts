// toolgate wrap around the official "everything" server: every MCP feature that is not a tool call must
// pass through untouched, in both directions, while tool listing and calling follow the policy.
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  EVERYTHING_SERVER,
  NODE,
  outcome,
  readAudit,
  tempDir,
  wrapCommand,
  writePolicy,
  type Connected,
} from "./helpers.js";

const POLICY = `version: "2.0"
name: everything-e2e
tools:
  deny: ["get-env", "gzip-*"]
enforcement:
  unconstrained_tools: allow
`;

const CAPABILITIES = { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } };

/** Answers the server's requests to the client, as a host would. */
function clientHandlers(client: Client): void {
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    role: "assistant",
    model: "e2e-model",
    content: { type: "text", text: `sampled: ${JSON.stringify(request.params.messages[0]?.content)}` },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///e2e-root", name: "e2e root" }],
  }));
}

let bare: Connected;
let wrapped: Connected;
let auditLog: string;

beforeAll(async () => {
  const dir = tempDir();
  const policy = writePolicy(dir, POLICY);
  auditLog = join(dir, "audit.jsonl");
  bare = await connect({ command: NODE, args: [EVERYTHING_SERVER] }, CAPABILITIES, clientHandlers);
  wrapped = await connect(
    wrapCommand(["--policy", policy, "--audit-log", auditLog], [NODE, EVERYTHING_SERVER]),
    CAPABILITIES,
    clientHandlers,
  );
});

afterAll(async () => {
  await wrapped?.close();
  await bare?.close();
});

describe("wrap + server-everything: tools", () => {
  it("lists the bare server's tools minus the denied ones", async () => {
    const bareNames = (await bare.client.listTools()).tools.map((t) => t.name);
    const shown = (await wrapped.client.listTools()).tools.map((t) => t.name);
    expect(bareNames).toContain("get-env");
    expect(bareNames).toContain("gzip-file-as-resource");
    expect(shown).toEqual(bareNames.filter((n) => n !== "get-env" && n !== "gzip-file-as-resource"));
  });

  it("forwards allowed calls", async () => {
    expect(await wrapped.client.callTool({ name: "echo", arguments: { message: "hi" } })).toEqual({
      content: [{ type: "text", text: "Echo: hi" }],
    });
    const sum = await wrapped.client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
    expect(JSON.stringify(sum.content)).toContain("5");
  });

  it("answers hidden and nonexistent tools exactly like the bare server answers an unknown tool", async () => {
    const nonexistent = await outcome(wrapped.client.callTool({ name: "no-such-tool", arguments: {} }));
    expect(nonexistent).toEqual(await outcome(bare.client.callTool({ name: "no-such-tool", arguments: {} })));
    const hidden = await outcome(wrapped.client.callTool({ name: "get-env", arguments: {} }));
    const bareUnknown = await outcome(bare.client.callTool({ name: "zz-missing", arguments: {} }));
    expect(hidden).toEqual(JSON.parse(JSON.stringify(bareUnknown).split("zz-missing").join("get-env")));
    // The real get-env would have printed the environment.
    expect(JSON.stringify(hidden)).not.toContain("PATH");
  });

  it("passes progress notifications for a call", async () => {
    const progress: number[] = [];
    const result = await wrapped.client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 0.5, steps: 4 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    // The SDK client hands notifications to handlers a microtask late and drops a progress handler as
    // soon as the answer is in, so a last progress read in the same chunk as the answer can be lost on
    // the client side (with or without toolgate). wrapRawFrames checks all four arrive, in order.
    expect(progress.slice(0, 3)).toEqual([1, 2, 3]);
    expect(JSON.stringify(result.content)).toContain("Long running operation completed");
  });
});

describe("wrap + server-everything: everything else passes through", () => {
  it("resources: list, templates, read", async () => {
    const direct = await bare.client.listResources();
    const through = await wrapped.client.listResources();
    expect(through).toEqual(direct);
    expect(await wrapped.client.listResourceTemplates()).toEqual(await bare.client.listResourceTemplates());
    const uri = through.resources[0]!.uri;
    expect(await wrapped.client.readResource({ uri })).toEqual(await bare.client.readResource({ uri }));
  });

  it("prompts: list, get with arguments, completion", async () => {
    expect(await wrapped.client.listPrompts()).toEqual(await bare.client.listPrompts());
    const prompt = await wrapped.client.getPrompt({ name: "args-prompt", arguments: { city: "Paris" } });
    expect(JSON.stringify(prompt.messages)).toContain("Paris");
    const completion = await wrapped.client.complete({
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "E" },
    });
    expect(completion.completion.values).toContain("Engineering");
  });

  it("ping and logging (a request one way, notifications the other)", async () => {
    await wrapped.client.ping();
    const messages: unknown[] = [];
    wrapped.client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n) => void messages.push(n.params),
    );
    await wrapped.client.setLoggingLevel("debug");
    await wrapped.client.callTool({ name: "toggle-simulated-logging", arguments: {} });
    const deadline = Date.now() + 5000;
    while (messages.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await wrapped.client.callTool({ name: "toggle-simulated-logging", arguments: {} });
    expect(messages.length).toBeGreaterThan(0);
  });

  it("server-to-client requests: sampling, elicitation and roots, with the client's answers", async () => {
    const sampled = await wrapped.client.callTool({
      name: "trigger-sampling-request",
      arguments: { prompt: "hello there" },
    });
    expect(JSON.stringify(sampled.content)).toContain("sampled:");
    expect(JSON.stringify(sampled.content)).toContain("hello there");
    const elicited = await wrapped.client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    expect(JSON.stringify(elicited.content)).toContain("declined");
    const roots = await wrapped.client.callTool({ name: "get-roots-list", arguments: {} });
    expect(JSON.stringify(roots.content)).toContain("file:///e2e-root");
  });

  it("audits calls and lists, not the rest", async () => {
    const events = readAudit(auditLog);
    expect(new Set(events.map((e) => e.event))).toEqual(new Set(["tools/call", "tools/list"]));
    expect(events.find((e) => e.tool === "get-env")).toMatchObject({
      decision: "hidden",
      code: "E_TOOL_DENIED",
    });
    expect(events.find((e) => e.tool === "echo")).toMatchObject({ decision: "allow", code: null });
  });
});
