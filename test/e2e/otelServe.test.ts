// toolgate serve with OTEL_EXPORTER_OTLP_ENDPOINT: the same decision spans as wrap, naming the server and
// the client; flushed when serve stops.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAudit } from "./helpers.js";
import { receiver, until, type Receiver } from "./otelReceiver.js";
import { httpClient, serveHttp, serveWorld, TOKEN, type ToolText } from "./serveHelpers.js";

const SECRET = "s3cr3t-serve-41d2";

let collector: Receiver;
afterAll(async () => {
  await collector?.close();
});

describe("serve: one span per tool call", () => {
  it("direct mode over HTTP: allowed and hidden calls, server and client named, nothing raw sent", async () => {
    collector = await receiver();
    const world = serveWorld();
    const auditLog = join(world.dir, "audit.jsonl");
    const serve = await serveHttp(world.dir, ["--token", TOKEN, "--audit-log", auditLog], {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    try {
      const { client } = await httpClient(serve.url, TOKEN);
      const echo = (await client.callTool({
        name: "everything__echo",
        arguments: { message: SECRET },
      })) as ToolText;
      expect(JSON.stringify(echo)).toContain(SECRET);
      // create_entities is not in config.yaml's mcp_tools for memory: hidden, answered as unknown.
      const hidden = (await client.callTool({
        name: "memory__create_entities",
        arguments: { entities: [{ name: SECRET, entityType: "x", observations: [] }] },
      })) as ToolText;
      expect(hidden.isError).toBe(true);
      await client.close();
    } finally {
      // SIGTERM: serve stops and flushes the spans it still holds (the batch delay is 5 s).
      await serve.stop();
    }
    await until(() => collector.spans().length >= 2);

    const spans = collector.spans();
    expect(spans).toHaveLength(2);
    for (const r of collector.requests) expect(r.body.toString("utf8")).not.toContain("s3cr3t");

    const calls = readAudit(auditLog).filter((e) => e.event === "tools/call");
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      const span = spans.find((s) => s.attrs["gen_ai.tool.call.id"] === String(call.request_id));
      expect(span).toBeDefined();
      expect(span!.attrs).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.tool,
        "toolgate.decision": call.decision,
        "toolgate.server": call.server,
        "toolgate.client": call.client,
        "toolgate.session": call.session,
        "toolgate.args_sha256": call.args_sha256,
      });
      expect(span!.name).toBe(`execute_tool ${String(call.tool)}`);
    }
    const allowed = spans.find((s) => s.attrs["toolgate.decision"] === "allow")!;
    expect(allowed.attrs["toolgate.server"]).toBe("everything");
    expect(allowed.status?.code ?? 0).toBe(0);
    const refused = spans.find((s) => s.attrs["toolgate.decision"] === "hidden")!;
    expect(refused.attrs["toolgate.server"]).toBe("memory");
    expect(refused.status?.code).toBe(2);
    expect(refused.attrs["error.type"]).toBe(refused.attrs["toolgate.code"]);
  });
});
