import { describe, expect, it } from "vitest";
import type { ToolCallEvent } from "../../../src/audit/events.js";
import {
  protocolWarning,
  telemetryRequested,
  tracesEndpointForMessages,
} from "../../../src/audit/otelConfig.js";
import { closeAuditSink, fanOutSink, type AuditSink } from "../../../src/audit/sink.js";
import { decisionSpan } from "../../../src/audit/spanAttributes.js";
import { withTelemetry } from "../../../src/audit/telemetry.js";

const SECRET = "s3cr3t-unit-55aa";

const event = (over: Partial<ToolCallEvent> = {}): ToolCallEvent => ({
  time: "2026-03-01T12:00:00.000Z",
  session: "sess",
  policy_digest: "d".repeat(64),
  request_id: 7,
  event: "tools/call",
  tool: "read_file",
  decision: "allow",
  code: null,
  rule: null,
  reason: `path '/home/${SECRET}' is fine`,
  warnings: [],
  args_sha256: "a".repeat(64),
  ...over,
});

describe("telemetryRequested", () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_SDK_DISABLED: "TRUE" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_SDK_DISABLED: "false" }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_TRACES_EXPORTER: "none" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", OTEL_TRACES_EXPORTER: "otlp" }, true],
  ])("%j → %s", (env, expected) => {
    expect(telemetryRequested(env)).toBe(expected);
  });
});

describe("what messages say about the endpoint", () => {
  it("never the user info or query of the URL", () => {
    expect(
      tracesEndpointForMessages({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://user:pw@collector.example:4318/" }),
    ).toBe("https://collector.example:4318/v1/traces");
    expect(
      tracesEndpointForMessages({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:9/t?key=secret" }),
    ).toBe("http://127.0.0.1:9/t");
  });

  it("warns for a protocol other than http/json", () => {
    expect(protocolWarning({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toBeNull();
    expect(protocolWarning({})).toBeNull();
    expect(protocolWarning({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toContain("'grpc'");
    expect(protocolWarning({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })).toContain("http/json");
  });
});

describe("decisionSpan", () => {
  it("an allowed call: GenAI names, toolgate fields, no status", () => {
    expect(decisionSpan(event(), "fs")).toEqual({
      name: "execute_tool read_file",
      time: Date.parse("2026-03-01T12:00:00.000Z"),
      refused: false,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "read_file",
        "gen_ai.tool.call.id": "7",
        "jsonrpc.request.id": "7",
        "mcp.method.name": "tools/call",
        "toolgate.decision": "allow",
        "toolgate.session": "sess",
        "toolgate.server": "fs",
        "toolgate.policy_digest": "d".repeat(64),
        "toolgate.args_sha256": "a".repeat(64),
      },
    });
  });

  it.each([
    ["deny", true],
    ["hidden", true],
    ["would-deny", false],
    ["would-hide", false],
  ] as const)("%s: refused %s, error.type only when refused", (decision, refused) => {
    const span = decisionSpan(
      event({
        decision,
        code: "E_SCOPE_VIOLATION",
        rule: { layer: "policy", kind: "tools.restrict_scope", value: "read_file" },
      }),
    );
    expect(span.refused).toBe(refused);
    expect(span.attributes["toolgate.code"]).toBe("E_SCOPE_VIOLATION");
    expect(span.attributes["toolgate.rule.kind"]).toBe("tools.restrict_scope");
    expect(span.attributes["error.type"]).toBe(refused ? "E_SCOPE_VIOLATION" : undefined);
    expect(span.statusMessage).toBe(refused ? "E_SCOPE_VIOLATION" : undefined);
  });

  it("carries nothing from the arguments but the digest: not the reason, not redacted arguments, not approvals", () => {
    const span = decisionSpan({
      ...event({ decision: "deny", code: "E_SCOPE_VIOLATION", warnings: ["E_TOOL_UNCONSTRAINED"] }),
      args_redacted: { path: `/home/${SECRET}`, token: "***" },
      approval: { artifact: { accepted: false, source: "params._meta.approval", problem: SECRET } },
      server: "srv",
      client: "tok",
      via: "mcp_invoke_srv",
    } as ToolCallEvent);
    expect(JSON.stringify(span)).not.toContain(SECRET);
    expect(span.attributes).toMatchObject({
      "toolgate.server": "srv",
      "toolgate.client": "tok",
      "toolgate.via": "mcp_invoke_srv",
      "toolgate.warnings": ["E_TOOL_UNCONSTRAINED"],
    });
  });

  it("no request id, no policy, no arguments: those attributes are absent", () => {
    const a = decisionSpan(event({ request_id: null, policy_digest: null, args_sha256: null })).attributes;
    expect(a["gen_ai.tool.call.id"]).toBeUndefined();
    expect(a["toolgate.policy_digest"]).toBeUndefined();
    expect(a["toolgate.args_sha256"]).toBeUndefined();
  });
});

describe("sinks at shutdown", () => {
  const recording = (log: string[], name: string, drain?: () => Promise<void>): AuditSink => ({
    write: () => void log.push(`${name}.write`),
    close: () => void log.push(`${name}.close`),
    ...(drain === undefined ? {} : { drain: async () => (log.push(`${name}.drain`), drain()) }),
  });

  it("fanOutSink drains every sink that can; closeAuditSink drains, then closes", async () => {
    const log: string[] = [];
    const sink = fanOutSink([recording(log, "file"), recording(log, "otel", async () => {})]);
    sink.write(event() as Parameters<AuditSink["write"]>[0]);
    await closeAuditSink(sink, 1000);
    expect(log).toEqual(["file.write", "otel.write", "otel.drain", "file.close", "otel.close"]);
  });

  it("a drain that never ends is cut short; signals are caught only while draining", async () => {
    const log: string[] = [];
    const before = process.listenerCount("SIGTERM");
    let during = 0;
    const sink = recording(log, "stuck", () => {
      during = process.listenerCount("SIGTERM");
      return new Promise(() => {});
    });
    await closeAuditSink(sink, 10);
    expect(log).toEqual(["stuck.drain", "stuck.close"]);
    expect(during).toBe(before + 1);
    expect(process.listenerCount("SIGTERM")).toBe(before);
  });

  it("withTelemetry returns the sink itself when no endpoint is set (no OpenTelemetry module loaded)", async () => {
    const sink = recording([], "file");
    expect(await withTelemetry(sink, { log: () => {}, env: {} })).toBe(sink);
    expect(
      await withTelemetry(null, {
        log: () => {},
        env: { OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://x" },
      }),
    ).toBeNull();
  });
});
