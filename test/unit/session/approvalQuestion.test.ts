import { describe, expect, it } from "vitest";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  approvalRequestParams,
  MAX_SHOWN_ARGUMENTS,
  readApprovalAnswer,
} from "../../../src/session/approvalQuestion.js";
import { clientElicitsForms } from "../../../src/session/clientCapabilities.js";

const rule = { layer: "policy", kind: "tools.approval_required", value: "deploy_*" };

describe("approvalRequestParams", () => {
  it("is a form-mode elicitation/create the MCP SDK accepts", () => {
    const params = approvalRequestParams({
      tool: "deploy_release",
      server: "prod",
      shownArguments: { env: "prod" },
      rule,
    });
    const parsed = ElicitRequestSchema.safeParse({ method: "elicitation/create", params });
    expect(parsed.success).toBe(true);
    expect(params.message).toContain("Tool: deploy_release");
    expect(params.message).toContain("Server: prod");
    expect(params.message).toContain('"env": "prod"');
    expect(params.message).toContain("tools.approval_required 'deploy_*'");
  });

  it("cuts long arguments and says so", () => {
    const params = approvalRequestParams({ tool: "t", shownArguments: { blob: "x".repeat(10_000) }, rule });
    const message = params.message as string;
    expect(message.length).toBeLessThan(MAX_SHOWN_ARGUMENTS + 1000);
    expect(message).toMatch(/more characters not shown/);
    expect(message).toContain("Server: (unnamed)");
  });
});

describe("readApprovalAnswer", () => {
  const res = (result: unknown) => ({ jsonrpc: "2.0" as const, id: "q", result });
  it.each([
    [{ action: "accept", content: { approve: true } }, { approved: true }],
    [
      { action: "accept", content: { approve: "true" } },
      { approved: false, outcome: "not-approved" },
    ],
    [
      { action: "accept", content: {} },
      { approved: false, outcome: "not-approved" },
    ],
    [{ action: "accept" }, { approved: false, outcome: "not-approved" }],
    [{ action: "decline" }, { approved: false, outcome: "decline" }],
    [
      { action: "cancel", content: { approve: true } },
      { approved: false, outcome: "cancel" },
    ],
    [
      { action: "ACCEPT", content: { approve: true } },
      { approved: false, outcome: "error" },
    ],
    [{}, { approved: false, outcome: "error" }],
    [null, { approved: false, outcome: "error" }],
  ])("%j → %j", (result, expected) => {
    expect(readApprovalAnswer(res(result))).toMatchObject(expected);
  });

  it("an error answer denies, with the client's message", () => {
    expect(
      readApprovalAnswer({ jsonrpc: "2.0", id: "q", error: { code: -32601, message: "Method not found" } }),
    ).toEqual({
      approved: false,
      outcome: "error",
      detail: "the client answered error -32601: Method not found",
    });
  });
});

describe("clientElicitsForms", () => {
  it.each([
    [undefined, false],
    [{}, false],
    [{ capabilities: {} }, false],
    [{ capabilities: { elicitation: true } }, false],
    [{ capabilities: { elicitation: {} } }, true],
    [{ capabilities: { elicitation: { form: {} } } }, true],
    [{ capabilities: { elicitation: { form: {}, url: {} } } }, true],
    [{ capabilities: { elicitation: { url: {} } } }, false],
  ])("%j → %s", (params, expected) => {
    expect(clientElicitsForms(params as Record<string, unknown> | undefined)).toBe(expected);
  });
});

describe("what the question shows first", () => {
  it("every path-like and resource argument in full, before arguments cut at 2,000 characters", () => {
    const params = approvalRequestParams({
      tool: "write_file",
      server: "fs",
      shownArguments: {
        content: "A".repeat(3000),
        path: "/home/me/.ssh/authorized_keys",
        url: "https://ok.example/x",
      },
      rule: { layer: "policy", kind: "tools.approval_required", value: "write_file" },
    });
    const message = String(params.message);
    expect(message).toContain(
      'Acts on (in full):\n  /path: "/home/me/.ssh/authorized_keys"\n  /url: "https://ok.example/x"',
    );
    expect(message).toMatch(/more characters not shown/);
    expect(message.indexOf("authorized_keys")).toBeLessThan(message.indexOf("AAAA"));
  });
});
