// The controls of toolgate wrap against real servers, driven by the official SDK client: approval (through
// MCP elicitation and through artifacts), path scope, redaction of everything toolgate writes, tool pins.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalDigest } from "../../src/engine/controls/approval.js";
import { APPROVAL_DIGEST_PROFILE } from "../../src/engine/model/approval.js";
import { pinForTool } from "../../src/engine/pins/exactHash.js";
import {
  connect,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  NODE,
  outcome,
  readAudit,
  tempDir,
  wrapCommand,
  writePolicy,
  type Connected,
} from "./helpers.js";

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { error_code?: string; reason?: string; violations?: Array<{ path: string }> };
};

/**
 * The code and text of toolgate's deny. server-filesystem's tools declare an outputSchema, so the deny
 * leaves out structuredContent (see denyResult.ts) and the code is read from the text.
 */
const denial = (r: ToolResult): { code: string | undefined; text: string } => {
  const text = r.content[0]?.text ?? "";
  return { code: r.structuredContent?.error_code ?? /^Blocked by \w+: (E_[A-Z_]+) /.exec(text)?.[1], text };
};

const open: Connected[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

async function wrapped(
  policyYaml: string,
  server: string[],
  extra: { flags?: string[]; elicit?: (message: string) => unknown; dir?: string } = {},
): Promise<Connected & { auditLog: string; questions: string[] }> {
  const dir = extra.dir ?? tempDir("tg-controls-");
  const policy = writePolicy(dir, policyYaml, `policy-${open.length}.yaml`);
  const auditLog = join(dir, `audit-${open.length}.jsonl`);
  const questions: string[] = [];
  const setup =
    extra.elicit === undefined
      ? undefined
      : (client: Client) =>
          client.setRequestHandler(ElicitRequestSchema, async (request) => {
            const message = request.params.message;
            questions.push(message);
            return extra.elicit!(message) as { action: "accept" | "decline" | "cancel" };
          });
  const spec = wrapCommand(["--policy", policy, "--audit-log", auditLog, ...(extra.flags ?? [])], server);
  const connected = await connect(
    spec,
    extra.elicit === undefined ? {} : { capabilities: { elicitation: {} } },
    setup,
  );
  open.push(connected);
  return { ...connected, auditLog, questions };
}

const call = async (
  c: Connected,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) =>
  (await c.client.callTool({
    name,
    arguments: args,
    ...(meta === undefined ? {} : { _meta: meta }),
  })) as ToolResult;

// A filesystem the server may reach entirely (its root is `root`); the policy's scope is only `workspace`.
let root: string;
let workspace: string;
beforeAll(() => {
  root = tempDir("tg-fs-");
  workspace = join(root, "workspace");
  mkdirSync(join(workspace, "docs"), { recursive: true });
  mkdirSync(join(root, "workspace_evil"));
  mkdirSync(join(root, "elsewhere"));
  writeFileSync(join(workspace, "notes.txt"), "inside\n");
  writeFileSync(join(root, "outside.txt"), "outside\n");
  writeFileSync(join(root, "workspace_evil", "secret.txt"), "evil\n");
  writeFileSync(join(root, "elsewhere", "secret.txt"), "elsewhere\n");
  symlinkSync(join(root, "elsewhere"), join(workspace, "link"));
});
const filesystem = (): string[] => [NODE, FILESYSTEM_SERVER, root];

describe("approval through MCP elicitation (server-filesystem)", () => {
  const POLICY = `version: "2.0"
tools:
  approval_required: ["write_file"]
enforcement: { unconstrained_tools: allow }
`;

  it("asks the person, and an accept with approve: true lets the call run", async () => {
    const c = await wrapped(POLICY, filesystem(), {
      flags: ["--label", "files"],
      elicit: () => ({ action: "accept", content: { approve: true } }),
    });
    const target = join(workspace, "approved.txt");
    const result = await call(c, "write_file", { path: target, content: "approved\n" });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("approved\n");
    expect(c.questions).toHaveLength(1);
    expect(c.questions[0]).toContain("Tool: write_file");
    expect(c.questions[0]).toContain("Server: files");
    expect(c.questions[0]).toContain(target);
    expect(readAudit(c.auditLog).find((e) => e.tool === "write_file")).toMatchObject({
      decision: "allow",
      approval: { elicitation: { outcome: "accept" } },
    });
  });

  it("a decline denies with E_APPROVAL_REQUIRED and the file never appears", async () => {
    const c = await wrapped(POLICY, filesystem(), { elicit: () => ({ action: "decline" }) });
    const target = join(workspace, "declined.txt");
    const result = await call(c, "write_file", { path: target, content: "no\n" });
    expect(result.isError).toBe(true);
    expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
    expect(denial(result).text).toContain("declined");
    expect(c.questions).toHaveLength(1);
    expect(existsSync(target)).toBe(false);
    expect(readAudit(c.auditLog).find((e) => e.tool === "write_file")).toMatchObject({
      decision: "deny",
      code: "E_APPROVAL_REQUIRED",
      approval: { elicitation: { outcome: "decline" } },
    });
  });

  it("an accept without approve: true is not an approval", async () => {
    const c = await wrapped(POLICY, filesystem(), {
      elicit: () => ({ action: "accept", content: { approve: false } }),
    });
    const target = join(workspace, "unticked.txt");
    const result = await call(c, "write_file", { path: target, content: "no\n" });
    expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
    expect(existsSync(target)).toBe(false);
  });
});

describe("approval artifacts (a client without elicitation, server-filesystem)", () => {
  const POLICY = `version: "2.0"
tools:
  approval_required: ["write_file"]
enforcement: { unconstrained_tools: allow }
`;
  let c: Connected & { auditLog: string };
  beforeAll(async () => {
    c = await wrapped(POLICY, filesystem());
  });
  const artifact = (path: string, over: Record<string, unknown> = {}) => ({
    approval_id: `apr-${path.length}`,
    approver: "alice@example.com",
    issued_at: new Date(Date.now() - 60_000).toISOString(),
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    bound_tool: "write_file",
    bound_resource: path,
    ...over,
  });

  it("without an artifact the call is denied, and nothing is written", async () => {
    const target = join(workspace, "no-artifact.txt");
    const result = await call(c, "write_file", { path: target, content: "x" });
    expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
    expect(existsSync(target)).toBe(false);
  });

  it("a current artifact for this tool and file lets the call run; the audit carries its digest and profile", async () => {
    const target = join(workspace, "with-artifact.txt");
    const a = artifact(target);
    const result = await call(
      c,
      "write_file",
      { path: target, content: "approved by artifact\n" },
      { approval: a },
    );
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("approved by artifact\n");
    expect(
      readAudit(c.auditLog).find((e) => e.tool === "write_file" && e.decision === "allow"),
    ).toMatchObject({
      approval: {
        artifact: { accepted: true, digest: approvalDigest(a), profile: APPROVAL_DIGEST_PROFILE },
      },
    });
  });

  it("an artifact in arguments._meta.approval works too (and is stripped: the server's strict schema would refuse _meta)", async () => {
    const target = join(workspace, "args-artifact.txt");
    const result = await call(c, "write_file", {
      path: target,
      content: "y\n",
      _meta: { approval: artifact(target) },
    });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("y\n");
  });

  it.each([
    ["expired", { issued_at: "2025-01-01T00:00:00Z", expires_at: "2025-01-01T01:00:00Z" }, "expired"],
    ["for another tool", { bound_tool: "move_file" }, "is for tool 'move_file'"],
    ["for another file", { bound_resource: "/somewhere/else.txt" }, "bound to"],
  ])(
    "an artifact %s is refused with E_APPROVAL_REQUIRED and nothing is written",
    async (what, over, text) => {
      const target = join(workspace, `refused-${what.replace(/ /g, "-")}.txt`);
      const a = artifact(target, over);
      const result = await call(c, "write_file", { path: target, content: "x" }, { approval: a });
      expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
      expect(denial(result).text).toContain(text);
      expect(existsSync(target)).toBe(false);
      const event = readAudit(c.auditLog).find(
        (e) => e.decision === "deny" && JSON.stringify(e.approval ?? {}).includes(approvalDigest(a)),
      );
      expect(event).toMatchObject({
        code: "E_APPROVAL_REQUIRED",
        approval: { artifact: { accepted: false } },
      });
    },
  );
});

describe("path scope (server-filesystem whose root is wider than the policy's scope)", () => {
  let c: Connected & { auditLog: string };
  let bare: Connected;
  beforeAll(async () => {
    c = await wrapped(
      `version: "2.0"
tools:
  restrict_scope: ["read_text_file", "read_multiple_files", "write_file", "list_directory"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: "${workspace}", scope_match_mode: prefix, realpath: true }
enforcement: { unconstrained_tools: allow }
`,
      filesystem(),
    );
    bare = await connect({ command: NODE, args: [FILESYSTEM_SERVER, root] });
    open.push(bare);
  });

  it("the bare server would read every one of these files (so toolgate is what stops them)", async () => {
    for (const path of [
      join(workspace, "..", "outside.txt"),
      join(root, "workspace_evil", "secret.txt"),
      join(workspace, "link", "secret.txt"),
    ]) {
      expect((await call(bare, "read_text_file", { path })).isError).toBeFalsy();
    }
  });

  it.each([
    ["a .. escape", () => `${workspace}/../outside.txt`],
    ["a sibling that shares the prefix", () => join(root, "workspace_evil", "secret.txt")],
    ["a symbolic link out of the scope (realpath: true)", () => join(workspace, "link", "secret.txt")],
    ["a percent-encoded escape", () => `${workspace}/%2e%2e/outside.txt`],
  ])("denies %s with E_SCOPE_VIOLATION", async (_what, path) => {
    const result = await call(c, "read_text_file", { path: path() });
    expect(result.isError).toBe(true);
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(JSON.stringify(result.content)).not.toMatch(/outside\n|evil\n|elsewhere\n/);
  });

  it("allows a path inside the scope", async () => {
    const result = await call(c, "read_text_file", { path: join(workspace, "notes.txt") });
    expect(result.content).toEqual([{ type: "text", text: "inside\n" }]);
  });

  it("checks every element of an array argument", async () => {
    const inside = join(workspace, "notes.txt");
    const result = await call(c, "read_multiple_files", { paths: [inside, join(root, "outside.txt")] });
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(denial(result).text).toContain(`/paths/1 "${join(root, "outside.txt")}"`);
    expect(denial(result).text).not.toContain("/paths/0");
    expect((await call(c, "read_multiple_files", { paths: [inside] })).isError).toBeFalsy();
  });

  it("a write outside the scope never happens", async () => {
    const target = join(root, "workspace_evil", "planted.txt");
    const result = await call(c, "write_file", { path: target, content: "x" });
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(existsSync(target)).toBe(false);
    expect(readAudit(c.auditLog).filter((e) => e.code === "E_SCOPE_VIOLATION").length).toBeGreaterThanOrEqual(
      5,
    );
  });
});

describe("redaction: a planted secret reaches no sink toolgate writes", () => {
  const SECRET = "PLANTED-7f3a9c-SECRET";
  let c: Connected & { auditLog: string; questions: string[] };
  beforeAll(async () => {
    c = await wrapped(
      `version: "2.0"
tools:
  approval_required: ["write_file"]
  redact_args: ["write_file", "read_text_file", "create_directory"]
  redact_args_contract: { redaction_target: args, redaction_mode: mask, redaction_scope: sensitive_fields, fields: [content, path] }
schemas:
  create_directory:
    type: object
    additionalProperties: false
    properties: { path: { type: string, pattern: "^/nowhere/" } }
    required: [path]
enforcement: { unconstrained_tools: allow }
`,
      filesystem(),
      { flags: ["--verbose"], elicit: () => ({ action: "accept", content: { approve: true } }) },
    );
  });

  it("allowed (after approval): forwarded as sent, written down redacted", async () => {
    const target = join(workspace, "secret-note.txt");
    const result = await call(c, "write_file", { path: target, content: SECRET });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe(SECRET);
    expect(c.questions).toHaveLength(1);
    expect(c.questions[0]).toContain("***");
  });

  it("denied by the argument schema", async () => {
    const result = await call(c, "create_directory", { path: join(workspace, SECRET) });
    expect(denial(result).code).toBe("E_ARG_SCHEMA");
    expect(existsSync(join(workspace, SECRET))).toBe(false);
  });

  it("an error from the server", async () => {
    const result = await call(c, "read_text_file", { path: join(workspace, `${SECRET}.txt`) });
    expect(result.isError).toBe(true);
    // The server's own answer goes to the client as it is.
    expect(JSON.stringify(result.content)).toContain(SECRET);
  });

  it("no sink holds it: audit log, stderr, the question the person was asked", async () => {
    await c.client.ping();
    const audit = readFileSync(c.auditLog, "utf8");
    const events = readAudit(c.auditLog).filter((e) => e.event === "tools/call");
    expect(events.map((e) => [e.tool, e.decision])).toEqual([
      ["write_file", "allow"],
      ["create_directory", "deny"],
      ["read_text_file", "allow"],
    ]);
    for (const e of events) expect(e.args_redacted).toMatchObject({ path: "***" });
    expect(events[0]?.args_redacted).toEqual({ path: "***", content: "***" });
    await expect.poll(() => c.stderr()).toContain("tools/call create_directory: deny E_ARG_SCHEMA");
    for (const sink of [audit, c.stderr(), ...c.questions]) expect(sink).not.toContain(SECRET);
  });
});

describe("tool pins (server-everything)", () => {
  const LABEL = "everything";
  let bare: Connected;
  let bareTools: Array<{ name: string; description?: string; inputSchema: unknown }>;
  beforeAll(async () => {
    bare = await connect({ command: NODE, args: [EVERYTHING_SERVER] });
    open.push(bare);
    bareTools = (await bare.client.listTools()).tools;
  });
  const pinsYaml = (tools: typeof bareTools, spoil?: string) =>
    tools
      .map((t) => {
        const pin = pinForTool(t, undefined, LABEL);
        const schema = t.name === spoil ? "0".repeat(64) : pin.schema_hash;
        return `  ${JSON.stringify(t.name)}:\n    server_id: ${LABEL}\n    tool_name: ${JSON.stringify(t.name)}\n    schema_hash: "${schema}"\n    meta_hash: "${pin.meta_hash}"\n`;
      })
      .join("");
  const policy = (pins: string, enforcement: string) =>
    `version: "2.0"\ntool_pins:\n${pins}enforcement: { unconstrained_tools: allow${enforcement} }\n`;
  const names = async (c: Connected) => (await c.client.listTools()).tools.map((t) => t.name);
  const bareUnknown = async (name: string) => {
    const missing = "zz-missing-tool";
    const answer = await outcome(bare.client.callTool({ name: missing, arguments: {} }));
    return JSON.parse(JSON.stringify(answer).split(missing).join(name)) as unknown;
  };

  it("every tool matching its pin is visible, even with unpinned tools denied", async () => {
    const c = await wrapped(
      policy(pinsYaml(bareTools), ", unpinned_tools: deny"),
      [NODE, EVERYTHING_SERVER],
      {
        flags: ["--label", LABEL],
      },
    );
    expect(await names(c)).toEqual(bareTools.map((t) => t.name));
    expect(await call(c, "echo", { message: "pinned" })).toMatchObject({
      content: [{ type: "text", text: "Echo: pinned" }],
    });
  });

  it("a tool whose schema does not match its pin is withheld and its call never reaches the server", async () => {
    const c = await wrapped(policy(pinsYaml(bareTools, "echo"), ""), [NODE, EVERYTHING_SERVER], {
      flags: ["--label", LABEL],
    });
    expect(await names(c)).toEqual(bareTools.map((t) => t.name).filter((n) => n !== "echo"));
    // Never shown to this client: answered as the server answers a tool it does not have.
    expect(await outcome(c.client.callTool({ name: "echo", arguments: { message: "x" } }))).toEqual(
      await bareUnknown("echo"),
    );
    expect(readAudit(c.auditLog).find((e) => e.tool === "echo")).toMatchObject({
      decision: "hidden",
      code: "E_TOOL_DRIFT",
    });
    await expect.poll(() => c.stderr()).toContain("withholding tool 'echo' (E_TOOL_DRIFT)");
  });

  it("with denied_tools: explain, the drifted tool's call gets the structured E_TOOL_DRIFT deny", async () => {
    const c = await wrapped(
      policy(pinsYaml(bareTools, "echo"), ", denied_tools: explain"),
      [NODE, EVERYTHING_SERVER],
      {
        flags: ["--label", LABEL],
      },
    );
    const result = await call(c, "echo", { message: "x" });
    expect(result.isError).toBe(true);
    expect(denial(result).code).toBe("E_TOOL_DRIFT");
    expect(denial(result).text).toContain("inputSchema changed");
  });

  it("unpinned_tools: deny withholds every tool without a pin", async () => {
    const pinned = bareTools.filter((t) => t.name === "echo" || t.name === "get-sum");
    const c = await wrapped(policy(pinsYaml(pinned), ", unpinned_tools: deny"), [NODE, EVERYTHING_SERVER], {
      flags: ["--label", LABEL],
    });
    expect(await names(c)).toEqual(["echo", "get-sum"]);
    expect(await outcome(c.client.callTool({ name: "get-env", arguments: {} }))).toEqual(
      await bareUnknown("get-env"),
    );
    expect(readAudit(c.auditLog).find((e) => e.tool === "get-env")).toMatchObject({
      decision: "hidden",
      code: "E_TOOL_DRIFT",
    });
  });

  it("pins of another server_id do not apply; the server's own name is used without --label", async () => {
    // Pinned under the label only: run without --label, the server is named by its serverInfo.name.
    const c = await wrapped(policy(pinsYaml(bareTools), ", unpinned_tools: deny"), [NODE, EVERYTHING_SERVER]);
    expect(await names(c)).toEqual([]);
    await expect
      .poll(() => c.stderr())
      .toContain("tool 'echo' on server 'mcp-servers/everything' has no pin");
  });

  it("warns about a pin whose tool the server no longer lists", async () => {
    const gone = `  renamed:\n    server_id: ${LABEL}\n    tool_name: echo-old\n    schema_hash: "${"1".repeat(64)}"\n    meta_hash: "${"1".repeat(64)}"\n`;
    const c = await wrapped(policy(gone, ""), [NODE, EVERYTHING_SERVER], { flags: ["--label", LABEL] });
    expect(await names(c)).toEqual(bareTools.map((t) => t.name));
    await expect
      .poll(() => c.stderr())
      .toContain(
        "tool_pins.renamed pins tool 'echo-old' of server 'everything', which the server 'everything' no longer lists",
      );
  });
});
