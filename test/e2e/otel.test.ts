// toolgate wrap with the standard OTEL_* variables: one span per tool-call decision, sent over OTLP/HTTP
// (JSON) to a receiver in this process on 127.0.0.1. No mock exporter: the bytes on the wire are checked.
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, EVERYTHING_SERVER, NODE, readAudit, ROOT, tempDir, writePolicy } from "./helpers.js";
import { receiver, until, type Receiver } from "./otelReceiver.js";

const POLICY = `version: "2.0"
name: otel-e2e
tools:
  deny: ["get-env"]
schemas:
  echo:
    type: object
    properties: { message: { type: string, maxLength: 40 } }
    required: ["message"]
enforcement:
  unconstrained_tools: allow
`;

/** Argument values that must never reach the collector. */
const SECRET_ALLOWED = "s3cr3t-allowed-7f3a";
const SECRET_DENIED = "s3cr3t-denied-9b1c-" + "x".repeat(40);

/** The official SDK client over stdio to `toolgate wrap …` with these extra environment variables. */
async function wrapped(
  wrapArgs: string[],
  env: Record<string, string>,
): Promise<{
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
  transport: StdioClientTransport;
}> {
  const transport = new StdioClientTransport({
    command: NODE,
    args: [CLI, "wrap", ...wrapArgs, "--", NODE, EVERYTHING_SERVER],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: "pipe",
    cwd: ROOT,
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const client = new Client({ name: "otel-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close(), transport };
}

/** Closes the wrapper's stdin and waits for the process to exit on its own (no signal, however long). */
async function endInputAndWait(w: { transport: StdioClientTransport }): Promise<void> {
  // The SDK keeps its child private; this test needs it to close stdin without the SDK's SIGTERM timer.
  const child = (w.transport as unknown as { _process?: ChildProcess })._process;
  if (child === undefined) throw new Error("the wrapper process is not running");
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  child.stdin?.end();
  await exited;
}

/** Waits until the wrapper process has exited (the client's close ends it; it flushes spans first). */
async function closeAndWait(w: { client: Client; close: () => Promise<void> }): Promise<void> {
  const closed = new Promise<void>((r) => (w.client.onclose = () => r()));
  await w.close();
  await closed;
}

const open: Receiver[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

describe("OTEL_EXPORTER_OTLP_ENDPOINT set: one span per tool call", () => {
  it("allowed, schema-denied and hidden calls; GenAI and toolgate attributes; ERROR on refusals; no argument values on the wire", async () => {
    const collector = await receiver();
    open.push(collector);
    const dir = tempDir("tg-otel-");
    const policy = writePolicy(dir, POLICY);
    const auditLog = join(dir, "audit.jsonl");
    const w = await wrapped(["--policy", policy, "--audit-log", auditLog, "--label", "otel-session"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    await w.client.listTools();
    const allowed = await w.client.callTool({ name: "echo", arguments: { message: SECRET_ALLOWED } });
    expect(JSON.stringify(allowed)).toContain(SECRET_ALLOWED);
    const denied = await w.client.callTool({ name: "echo", arguments: { message: SECRET_DENIED } });
    expect(denied.isError).toBe(true);
    const hidden = await w.client.callTool({ name: "get-env", arguments: { token: SECRET_ALLOWED } });
    expect(hidden.isError).toBe(true);
    const sum = await w.client.callTool({ name: "get-sum", arguments: { a: 20260, b: 7 } });
    expect(JSON.stringify(sum)).toContain("20267");
    // The default batch delay is 5 s: the spans arrive because the wrapper flushes them when it exits.
    await closeAndWait(w);
    await until(() => collector.spans().length >= 4);

    const spans = collector.spans();
    expect(spans).toHaveLength(4);
    for (const r of collector.requests) {
      expect(r.path).toBe("/v1/traces");
      const bytes = r.body.toString("utf8");
      expect(bytes).not.toContain(SECRET_ALLOWED);
      expect(bytes).not.toContain("s3cr3t");
      expect(bytes).not.toContain("20260");
    }

    const calls = readAudit(auditLog).filter((e) => e.event === "tools/call");
    expect(calls).toHaveLength(4);
    for (const call of calls) {
      const span = spans.find((s) => s.attrs["gen_ai.tool.call.id"] === String(call.request_id));
      expect(span, `span for request ${String(call.request_id)}`).toBeDefined();
      expect(span!.name).toBe(`execute_tool ${String(call.tool)}`);
      expect(span!.kind).toBe(1); // INTERNAL
      expect(span!.resource["service.name"]).toBe("toolgate");
      expect(span!.attrs).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.tool,
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": String(call.request_id),
        "toolgate.decision": call.decision,
        "toolgate.session": "otel-session",
        "toolgate.policy_digest": call.policy_digest,
        "toolgate.args_sha256": call.args_sha256,
      });
      expect(span!.attrs["toolgate.policy_digest"]).toMatch(/^[0-9a-f]{64}$/);
    }

    const byTool = (tool: string, decision: string) =>
      spans.find((s) => s.attrs["gen_ai.tool.name"] === tool && s.attrs["toolgate.decision"] === decision)!;
    const allowSpan = byTool("echo", "allow");
    expect(allowSpan.status?.code ?? 0).toBe(0);
    expect(allowSpan.attrs["error.type"]).toBeUndefined();

    const denySpan = byTool("echo", "deny");
    expect(denySpan.status).toMatchObject({ code: 2, message: "E_ARG_SCHEMA" });
    expect(denySpan.attrs).toMatchObject({ "toolgate.code": "E_ARG_SCHEMA", "error.type": "E_ARG_SCHEMA" });

    const hiddenSpan = byTool("get-env", "hidden");
    expect(hiddenSpan.status).toMatchObject({ code: 2, message: "E_TOOL_DENIED" });
    expect(hiddenSpan.attrs).toMatchObject({
      "toolgate.code": "E_TOOL_DENIED",
      "error.type": "E_TOOL_DENIED",
      "toolgate.rule.kind": expect.any(String),
      "toolgate.rule.value": "get-env",
    });
  });

  it("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS; batches sent while running", async () => {
    const collector = await receiver();
    open.push(collector);
    const w = await wrapped([], {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/custom/traces`,
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/not-this-one",
      OTEL_SERVICE_NAME: "gate-under-test",
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k123",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "50",
    });
    await w.client.callTool({ name: "echo", arguments: { message: "one" } });
    // Sent by the batch timer while the wrapper still runs.
    await until(() => collector.spans().length === 1);
    await w.client.callTool({ name: "echo", arguments: { message: "two" } });
    await closeAndWait(w);
    await until(() => collector.spans().length === 2);
    expect(collector.requests.every((r) => r.path === "/custom/traces")).toBe(true);
    expect(collector.requests[0]!.headers["x-collector-key"]).toBe("k123");
    expect(collector.spans().map((s) => s.resource["service.name"])).toEqual([
      "gate-under-test",
      "gate-under-test",
    ]);
    expect(w.stderr()).not.toContain("OpenTelemetry");
  });

  it("a collector that never answers does not hold calls up, and the exit waits only a bounded time", async () => {
    const collector = await receiver({ hang: true });
    open.push(collector);
    const w = await wrapped([], {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: "10",
    });
    for (const message of ["a", "b", "c"]) {
      const result = await w.client.callTool({ name: "echo", arguments: { message } });
      expect(JSON.stringify(result)).toContain(message);
      await until(() => collector.requests.length >= 1);
    }
    // End the wrapper's input and wait for its own exit: the SDK client's close sends SIGTERM after 2 s,
    // which a loaded machine reaches before the 1500 ms wait for the collector (plus the server's exit) ends.
    await endInputAndWait(w);
    expect(w.stderr()).toMatch(
      /OpenTelemetry: spans not yet sent to http:\/\/127\.0\.0\.1:\d+\/v1\/traces after 1500 ms were dropped at exit/,
    );
  });

  it("no collector listening: calls go on, the failure is reported once on stderr", async () => {
    const gone = await receiver();
    const url = gone.url;
    await gone.close();
    // A short export timeout ends the exporter's retries quickly, so several batches fail while it runs.
    const w = await wrapped([], {
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_BSP_SCHEDULE_DELAY: "10",
      OTEL_EXPORTER_OTLP_TIMEOUT: "200",
    });
    for (const message of ["a", "b", "c", "d"]) {
      const result = await w.client.callTool({ name: "echo", arguments: { message } });
      expect(JSON.stringify(result)).toContain(message);
      await new Promise((r) => setTimeout(r, 300));
    }
    await until(() => /exporting spans/.test(w.stderr()));
    await new Promise((r) => setTimeout(r, 500));
    await closeAndWait(w);
    const failures =
      w.stderr().match(/OpenTelemetry: exporting spans to http:\/\/127\.0\.0\.1:\d+\/v1\/traces failed/g) ??
      [];
    expect(failures).toHaveLength(1);
  });

  it("OTEL_SDK_DISABLED=true: nothing is sent and nothing is said", async () => {
    const collector = await receiver();
    open.push(collector);
    const w = await wrapped([], { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SDK_DISABLED: "true" });
    await w.client.callTool({ name: "echo", arguments: { message: "quiet" } });
    await closeAndWait(w);
    expect(collector.requests).toHaveLength(0);
    expect(w.stderr()).not.toContain("OpenTelemetry");
  });
});
