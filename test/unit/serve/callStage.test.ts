// The call stage in serve is the policy's, as in wrap: approval through the client's person (MCP
// elicitation) or refused when nobody can be asked; redaction of what the audit log says about a call.
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { AuditEvent } from "../../../src/audit/events.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import { createPolicyGate } from "../../../src/engine/policy/policyGate.js";
import { GatewaySession } from "../../../src/serve/gatewaySession.js";
import type { ServeMode } from "../../../src/serve/serveMode.js";
import { DEFAULT_BACKOFF } from "../../../src/upstream/upstreamLink.js";
import { fakeConnect, stdioConfig, type FakeCatalogs } from "./fakeUpstream.js";

const POLICY = `version: "2.0"
tools:
  allow: ["deploy", "ticket"]
  approval_required: ["deploy"]
  redact_args: ["ticket"]
  redact_args_contract:
    redaction_target: "args"
    redaction_mode: "mask"
    redaction_scope: "all_fields"
enforcement:
  unconstrained_tools: allow
`;

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

interface Harness {
  client: Client;
  catalogs: FakeCatalogs;
  events: AuditEvent[];
  questions: unknown[];
}

async function harness(mode: ServeMode, answer: "approve" | "decline" | "no-elicitation"): Promise<Harness> {
  const { policy, diagnostics } = loadPolicyText("p.yaml", POLICY);
  if (policy === null) throw new Error(JSON.stringify(diagnostics));
  const gate = createPolicyGate(compilePolicy(policy), { serverId: "srv" });
  const catalogs: FakeCatalogs = { tools: { srv: ["deploy", "ticket"] }, executed: [] };
  const events: AuditEvent[] = [];
  const session = new GatewaySession({
    mode,
    context: {
      client: "t",
      selection: { skills: [] },
      servers: [stdioConfig("srv")],
      gates: new Map([["srv", gate]]),
      policy: gate,
    },
    sessionId: "call-stage",
    audit: { write: (e) => void events.push(e), close: () => {} },
    connect: fakeConnect(catalogs),
    upstreamTimeoutMs: 5000,
    requestTimeoutMs: 5000,
    backoff: DEFAULT_BACKOFF,
    log: () => {},
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await session.connect(b);
  const questions: unknown[] = [];
  const client = new Client(
    { name: "t", version: "1" },
    { capabilities: answer === "no-elicitation" ? {} : { elicitation: { form: {} } } },
  );
  if (answer !== "no-elicitation") {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      questions.push(request.params);
      return answer === "approve" ? { action: "accept", content: { approve: true } } : { action: "decline" };
    });
  }
  await client.connect(a);
  open.push(async () => {
    await client.close();
    await session.close();
  });
  return { client, catalogs, events, questions };
}

type Result = {
  isError?: boolean;
  content: Array<{ text: string }>;
  structuredContent?: Record<string, unknown>;
};
const callEvents = (h: Harness) =>
  h.events.filter((e) => e.event === "tools/call") as unknown as Array<Record<string, unknown>>;

describe("serve: approval_required", () => {
  it("asks the client's person and forwards only what they approved", async () => {
    const h = await harness("direct", "approve");
    const result = (await h.client.callTool({
      name: "srv__deploy",
      arguments: { version: "1.2" },
    })) as Result;
    expect(result).toEqual({ content: [{ type: "text", text: "ran deploy" }] });
    expect(h.catalogs.executed).toEqual(["srv:deploy"]);
    expect(h.questions).toHaveLength(1);
    expect(JSON.stringify(h.questions[0])).toContain("Tool: deploy");
    expect(callEvents(h).at(-1)).toMatchObject({
      decision: "allow",
      server: "srv",
      approval: { elicitation: { outcome: "accept" } },
    });
  });

  it("refuses with E_APPROVAL_REQUIRED when the person declines, and the server never sees the call", async () => {
    const h = await harness("meta", "decline");
    const result = (await h.client.callTool({
      name: "mcp_invoke_srv",
      arguments: { tool: "deploy", arguments: { version: "1.2" } },
    })) as Result;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: "deny",
      error_code: "E_APPROVAL_REQUIRED",
      tool: "deploy",
    });
    expect(result.content[0]!.text).toContain("the person declined");
    expect(h.catalogs.executed).toEqual([]);
    expect(callEvents(h).at(-1)).toMatchObject({
      decision: "deny",
      code: "E_APPROVAL_REQUIRED",
      via: "mcp_invoke_srv",
      approval: { elicitation: { outcome: "decline" } },
    });
  });

  it("refuses when the client cannot be asked and carries no approval artifact", async () => {
    const h = await harness("direct", "no-elicitation");
    const result = (await h.client.callTool({ name: "srv__deploy", arguments: {} })) as Result;
    expect(result.structuredContent).toMatchObject({ error_code: "E_APPROVAL_REQUIRED" });
    expect(result.content[0]!.text).toContain(
      "the client did not declare form-mode elicitation in initialize",
    );
    expect(h.catalogs.executed).toEqual([]);
  });
});

describe("serve: redact_args", () => {
  it("writes the redacted arguments, never the values, and forwards them unchanged", async () => {
    const h = await harness("direct", "no-elicitation");
    const result = (await h.client.callTool({
      name: "srv__ticket",
      arguments: { title: "secret-title-123" },
    })) as Result;
    expect(result).toEqual({ content: [{ type: "text", text: "ran ticket" }] });
    const event = callEvents(h).at(-1)!;
    expect(event).toHaveProperty("args_redacted");
    expect(JSON.stringify(event)).not.toContain("secret-title-123");
  });
});
