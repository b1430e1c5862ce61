// The controls of toolgate serve against real servers, driven by the official SDK client over stdio (and over
// Streamable HTTP with a token): approval through MCP elicitation and through artifacts (checked, and stripped
// before forwarding), path scope, redaction of everything toolgate writes, tool pins (schema_hash drift,
// drift after the tool was shown, unpinned tools, exact_schema_hash of integers beyond 2^53 over stdio and
// HTTP upstreams).
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalDigest } from "../../src/engine/controls/approval.js";
import { pinForTool } from "../../src/engine/pins/exactHash.js";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { answerText } from "./fixtures/bigintAnswers.mjs";
import {
  connect,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  FIXTURES,
  NODE,
  outcome,
  readAudit,
  tempDir,
  type Connected,
} from "./helpers.js";
import { httpClient, serveHttp, serveStdio, TOKEN, until, type HttpServe } from "./serveHelpers.js";

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { error_code?: string; reason?: string };
};

/**
 * The code and text of toolgate's deny. server-filesystem's tools declare an outputSchema, so the deny
 * leaves out structuredContent (see denyResult.ts) and the code is read from the text.
 */
const denial = (r: ToolResult): { code: string | undefined; text: string } => {
  const text = r.content[0]?.text ?? "";
  return { code: r.structuredContent?.error_code ?? /^Blocked by \w+: (E_[A-Z_]+) /.exec(text)?.[1], text };
};

const DRIFT_SERVER = join(FIXTURES, "driftServer.mjs");
const HOSTILE_SERVER = join(FIXTURES, "hostileServer.mjs");
const BIGINT_SERVER = join(FIXTURES, "bigintServer.mjs");
const BIG = "9007199254740993"; // 2^53 + 1
const NEIGHBOUR = "9007199254740992"; // 2^53: the same double

const open: Array<{ close: () => Promise<void> }> = [];
afterAll(async () => {
  for (const c of open.reverse()) await c.close().catch(() => {});
});

// A filesystem server-filesystem may reach entirely (its root is `root`); the policies' scope is `workspace`.
let root: string;
let workspace: string;
beforeAll(() => {
  root = tempDir("tg-serve-fs-");
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

/** A configuration directory with these mcp.json servers (all enabled) and `policy.yaml`. */
function world(servers: Record<string, unknown>, policy: string): { dir: string; policy: string } {
  const dir = configDir({
    "mcp.json": mcpJson(servers),
    "config.yaml": "enabled_mcp_servers: all\n",
    "policy.yaml": policy,
  });
  return { dir, policy: join(dir, "policy.yaml") };
}

const fsServer = (): Record<string, unknown> => ({ command: NODE, args: [FILESYSTEM_SERVER, root] });

interface Served extends Connected {
  auditLog: string;
  questions: string[];
}

/** `toolgate serve --stdio` over the world, with an audit log; `elicit` makes the client declare elicitation. */
async function served(
  w: { dir: string; policy: string },
  elicit?: (message: string) => unknown,
): Promise<Served> {
  const auditLog = join(w.dir, `audit-${open.length}.jsonl`);
  const questions: string[] = [];
  const setup =
    elicit === undefined
      ? undefined
      : (client: Client) =>
          client.setRequestHandler(ElicitRequestSchema, async (request) => {
            questions.push(request.params.message);
            return elicit(request.params.message) as { action: "accept" | "decline" | "cancel" };
          });
  const c = await serveStdio(
    w.dir,
    ["--stdio", "--policy", w.policy, "--audit-log", auditLog],
    elicit === undefined ? {} : { capabilities: { elicitation: {} } },
    setup,
  );
  open.push(c);
  return { ...c, auditLog, questions };
}

const call = async (
  c: { client: Client },
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) =>
  (await c.client.callTool({
    name,
    arguments: args,
    ...(meta === undefined ? {} : { _meta: meta }),
  })) as ToolResult;

const callEvents = (auditLog: string, tool?: string) =>
  readAudit(auditLog).filter((e) => e.event === "tools/call" && (tool === undefined || e.tool === tool));

const APPROVE_WRITES = `version: "2.0"
tools:
  approval_required: ["write_file"]
enforcement: { unconstrained_tools: allow }
`;

describe("approval through MCP elicitation (stdio, server-filesystem)", () => {
  it("asks the person on the call's own stream; an accept lets the call reach the server", async () => {
    const c = await served(world({ fs: fsServer() }, APPROVE_WRITES), () => ({
      action: "accept",
      content: { approve: true },
    }));
    const target = join(workspace, "serve-approved.txt");
    const result = await call(c, "fs__write_file", { path: target, content: "approved\n" });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("approved\n");
    expect(c.questions).toHaveLength(1);
    expect(c.questions[0]).toContain("Tool: write_file");
    expect(c.questions[0]).toContain("Server: fs");
    expect(c.questions[0]).toContain(target);
    expect(callEvents(c.auditLog, "write_file")).toMatchObject([
      { server: "fs", decision: "allow", approval: { elicitation: { outcome: "accept" } } },
    ]);
  });

  it("a decline denies with E_APPROVAL_REQUIRED and the file never appears", async () => {
    const c = await served(world({ fs: fsServer() }, APPROVE_WRITES), () => ({ action: "decline" }));
    const target = join(workspace, "serve-declined.txt");
    const result = await call(c, "fs__write_file", { path: target, content: "no\n" });
    expect(result.isError).toBe(true);
    expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
    expect(denial(result).text).toContain("declined");
    expect(c.questions).toHaveLength(1);
    expect(existsSync(target)).toBe(false);
    expect(callEvents(c.auditLog, "write_file")).toMatchObject([
      { decision: "deny", code: "E_APPROVAL_REQUIRED", approval: { elicitation: { outcome: "decline" } } },
    ]);
  });
});

describe("approval and scope over Streamable HTTP with a token (one serve, three client sessions)", () => {
  let serve: HttpServe;
  let auditLog: string;
  beforeAll(async () => {
    const w = world(
      { fs: fsServer() },
      `version: "2.0"
tools:
  approval_required: ["write_file"]
  restrict_scope: ["read_text_file", "write_file"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: "${workspace}", scope_match_mode: prefix }
enforcement: { unconstrained_tools: allow }
`,
    );
    auditLog = join(w.dir, "audit-http.jsonl");
    serve = await serveHttp(w.dir, ["--policy", w.policy, "--audit-log", auditLog], {
      TOOLGATE_TOKEN: TOKEN,
    });
    open.push({ close: serve.stop });
  });

  const session = async (answer?: "accept" | "decline") => {
    const questions: string[] = [];
    const { client } = await httpClient(
      serve.url,
      TOKEN,
      answer === undefined ? {} : { capabilities: { elicitation: {} } },
    );
    open.push(client);
    if (answer !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        questions.push(request.params.message);
        return answer === "accept" ? { action: "accept", content: { approve: true } } : { action: "decline" };
      });
    }
    return { client, questions };
  };

  it("a client that accepts gets its file written; one that declines, and one that cannot be asked, do not", async () => {
    const [accepting, declining, mute] = await Promise.all([
      session("accept"),
      session("decline"),
      session(),
    ]);
    const targets = ["http-accepted.txt", "http-declined.txt", "http-mute.txt"].map((f) =>
      join(workspace, f),
    );
    const results = await Promise.all(
      [accepting, declining, mute].map((s, i) =>
        call(s, "fs__write_file", { path: targets[i]!, content: `${i}\n` }),
      ),
    );
    expect(results[0]!.isError).toBeFalsy();
    expect(readFileSync(targets[0]!, "utf8")).toBe("0\n");
    for (const r of results.slice(1)) expect(denial(r).code).toBe("E_APPROVAL_REQUIRED");
    expect(denial(results[2]!).text).toContain("elicitation");
    expect(existsSync(targets[1]!)).toBe(false);
    expect(existsSync(targets[2]!)).toBe(false);
    // Each person was asked about their own call only.
    expect(accepting.questions).toHaveLength(1);
    expect(accepting.questions[0]).toContain(targets[0]!);
    expect(declining.questions).toHaveLength(1);
    expect(declining.questions[0]).toContain(targets[1]!);
    const events = callEvents(auditLog, "write_file");
    expect(events.map((e) => [e.client, e.decision, e.code]).sort()).toEqual([
      ["token", "allow", null],
      ["token", "deny", "E_APPROVAL_REQUIRED"],
      ["token", "deny", "E_APPROVAL_REQUIRED"],
    ]);
  });

  it("scope is enforced over HTTP too: a .. escape is denied, a path inside is read", async () => {
    const { client } = await session();
    const escaped = await call({ client }, "fs__read_text_file", { path: `${workspace}/../outside.txt` });
    expect(denial(escaped).code).toBe("E_SCOPE_VIOLATION");
    expect(JSON.stringify(escaped.content)).not.toContain("outside\n");
    const inside = await call({ client }, "fs__read_text_file", { path: join(workspace, "notes.txt") });
    expect(inside.content).toEqual([{ type: "text", text: "inside\n" }]);
  });
});

describe("approval artifacts and path scope (stdio, a client without elicitation)", () => {
  let c: Served;
  let bare: Connected;
  beforeAll(async () => {
    c = await served(
      world(
        { fs: fsServer(), hostile: { command: NODE, args: [HOSTILE_SERVER] } },
        `version: "2.0"
tools:
  approval_required: ["write_file", "raw"]
  restrict_scope: ["read_text_file", "read_multiple_files", "write_file", "list_directory"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: "${workspace}", scope_match_mode: prefix, realpath: true }
enforcement: { unconstrained_tools: allow }
`,
      ),
    );
    bare = await connect({ command: NODE, args: [FILESYSTEM_SERVER, root] });
    open.push(bare);
  });
  const artifact = (tool: string, path?: string, over: Record<string, unknown> = {}) => ({
    approval_id: `apr-${tool}-${path?.length ?? 0}`,
    approver: "alice@example.com",
    issued_at: new Date(Date.now() - 60_000).toISOString(),
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    bound_tool: tool,
    ...(path === undefined ? {} : { bound_resource: path }),
    ...over,
  });
  /** What the hostile fixture's `raw` tool received: the exact line toolgate forwarded. */
  const received = (r: ToolResult): { params: Record<string, unknown> } =>
    JSON.parse(r.content[0]?.text ?? "{}") as { params: Record<string, unknown> };

  it("without an artifact the call is denied, and nothing is written", async () => {
    const target = join(workspace, "serve-no-artifact.txt");
    const result = await call(c, "fs__write_file", { path: target, content: "x" });
    expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
    expect(existsSync(target)).toBe(false);
  });

  it("a current artifact in _meta.approval for this tool and file lets the call run; the audit carries its digest", async () => {
    const target = join(workspace, "serve-artifact.txt");
    const a = artifact("write_file", target);
    const result = await call(
      c,
      "fs__write_file",
      { path: target, content: "by artifact\n" },
      { approval: a },
    );
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("by artifact\n");
    expect(callEvents(c.auditLog, "write_file").find((e) => e.decision === "allow")).toMatchObject({
      approval: { artifact: { accepted: true, digest: approvalDigest(a) } },
    });
  });

  it("an artifact in arguments._meta.approval works too", async () => {
    const target = join(workspace, "serve-args-artifact.txt");
    const result = await call(c, "fs__write_file", {
      path: target,
      content: "y\n",
      _meta: { approval: artifact("write_file", target) },
    });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("y\n");
  });

  it("the artifact is stripped before forwarding: the server never receives it (params._meta or arguments._meta)", async () => {
    const viaParams = await call(
      c,
      "hostile__raw",
      { keep: 1 },
      { approval: artifact("raw"), other: "kept" },
    );
    expect(viaParams.isError).toBeFalsy();
    const line = viaParams.content[0]?.text ?? "";
    expect(line).not.toContain("alice@example.com");
    expect(received(viaParams).params).toEqual({
      name: "raw",
      arguments: { keep: 1 },
      _meta: { other: "kept" },
    });

    const viaArgs = await call(c, "hostile__raw", { keep: 2, _meta: { approval: artifact("raw") } });
    expect(viaArgs.isError).toBeFalsy();
    expect(viaArgs.content[0]?.text).not.toContain("alice@example.com");
    expect(received(viaArgs).params).toEqual({ name: "raw", arguments: { keep: 2 } });
  });

  it.each([
    ["expired", { issued_at: "2025-01-01T00:00:00Z", expires_at: "2025-01-01T01:00:00Z" }, "expired"],
    ["for another tool", { bound_tool: "move_file" }, "is for tool 'move_file'"],
    ["for another file", { bound_resource: "/somewhere/else.txt" }, "bound to"],
  ])(
    "an artifact %s is refused with E_APPROVAL_REQUIRED and nothing is written",
    async (what, over, text) => {
      const target = join(workspace, `serve-refused-${what.replace(/ /g, "-")}.txt`);
      const a = artifact("write_file", target, over);
      const result = await call(c, "fs__write_file", { path: target, content: "x" }, { approval: a });
      expect(denial(result).code).toBe("E_APPROVAL_REQUIRED");
      expect(denial(result).text).toContain(text);
      expect(existsSync(target)).toBe(false);
      const event = callEvents(c.auditLog).find(
        (e) => e.decision === "deny" && JSON.stringify(e.approval ?? {}).includes(approvalDigest(a)),
      );
      expect(event).toMatchObject({
        code: "E_APPROVAL_REQUIRED",
        approval: { artifact: { accepted: false } },
      });
    },
  );

  it("the bare server would read every file below (so toolgate is what stops them)", async () => {
    for (const path of [
      `${workspace}/../outside.txt`,
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
    const result = await call(c, "fs__read_text_file", { path: path() });
    expect(result.isError).toBe(true);
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(JSON.stringify(result.content)).not.toMatch(/outside\n|evil\n|elsewhere\n/);
  });

  it("allows a path inside the scope", async () => {
    const result = await call(c, "fs__read_text_file", { path: join(workspace, "notes.txt") });
    expect(result.content).toEqual([{ type: "text", text: "inside\n" }]);
  });

  it("checks every element of an array argument (read_multiple_files)", async () => {
    const inside = join(workspace, "notes.txt");
    const result = await call(c, "fs__read_multiple_files", { paths: [inside, join(root, "outside.txt")] });
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(denial(result).text).toContain(`/paths/1 "${join(root, "outside.txt")}"`);
    expect(denial(result).text).not.toContain("/paths/0");
    expect((await call(c, "fs__read_multiple_files", { paths: [inside] })).isError).toBeFalsy();
  });

  it("a write outside the scope never happens, even with a matching artifact", async () => {
    const target = join(root, "workspace_evil", "planted.txt");
    const result = await call(
      c,
      "fs__write_file",
      { path: target, content: "x" },
      { approval: artifact("write_file", target) },
    );
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
    expect(existsSync(target)).toBe(false);
    expect(
      callEvents(c.auditLog).filter((e) => e.code === "E_SCOPE_VIOLATION" && e.server === "fs").length,
    ).toBeGreaterThanOrEqual(6);
  });
});

describe("redaction: a planted secret reaches no sink toolgate writes (stdio)", () => {
  const SECRET = "PLANTED-5e1b2d-SECRET";
  let c: Served;
  beforeAll(async () => {
    c = await served(
      world(
        { fs: fsServer() },
        `version: "2.0"
tools:
  approval_required: ["write_file"]
  restrict_scope: ["read_text_file"]
  restrict_scope_contract: { scope_type: path_prefix, scope_value: "${workspace}", scope_match_mode: prefix }
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
      ),
      () => ({ action: "accept", content: { approve: true } }),
    );
  });

  it("allowed (after approval): forwarded as sent, the question shows it masked", async () => {
    const target = join(workspace, `${SECRET}.txt`);
    const result = await call(c, "fs__write_file", { path: target, content: SECRET });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe(SECRET);
    expect(c.questions).toHaveLength(1);
    expect(c.questions[0]).toContain("***");
  });

  it("denied by the argument schema", async () => {
    const result = await call(c, "fs__create_directory", { path: join(workspace, SECRET) });
    expect(denial(result).code).toBe("E_ARG_SCHEMA");
    expect(existsSync(join(workspace, SECRET))).toBe(false);
  });

  it("denied by the scope (its reason names the path normalized, not as written)", async () => {
    const result = await call(c, "fs__read_text_file", { path: `${workspace}/../${SECRET}` });
    expect(denial(result).code).toBe("E_SCOPE_VIOLATION");
  });

  it("an error from the server", async () => {
    const result = await call(c, "fs__read_text_file", { path: join(workspace, `missing-${SECRET}.txt`) });
    expect(result.isError).toBe(true);
    // The server's own answer goes to the client as it is.
    expect(JSON.stringify(result.content)).toContain(SECRET);
  });

  it("no sink holds it: audit log, stderr, the question the person was asked", async () => {
    await c.client.ping();
    const events = callEvents(c.auditLog);
    expect(events.map((e) => [e.tool, e.decision, e.code])).toEqual([
      ["write_file", "allow", null],
      ["create_directory", "deny", "E_ARG_SCHEMA"],
      ["read_text_file", "deny", "E_SCOPE_VIOLATION"],
      ["read_text_file", "allow", null],
    ]);
    for (const e of events) expect(e.args_redacted).toMatchObject({ path: "***" });
    expect(events[0]?.args_redacted).toEqual({ path: "***", content: "***" });
    const audit = readFileSync(c.auditLog, "utf8");
    expect(audit).toContain("args_sha256");
    for (const sink of [audit, c.stderr(), ...c.questions]) expect(sink).not.toContain(SECRET);
  });
});

describe("tool pins (stdio; server-everything and a server that changes its tools)", () => {
  type Listed = { name: string; description?: string; inputSchema: unknown };
  let everythingTools: Listed[];
  let driftTools: Listed[];
  beforeAll(async () => {
    const bareEverything = await connect({ command: NODE, args: [EVERYTHING_SERVER] });
    const bareDrift = await connect({ command: NODE, args: [DRIFT_SERVER] });
    everythingTools = (await bareEverything.client.listTools()).tools;
    driftTools = (await bareDrift.client.listTools()).tools;
    await Promise.all([bareEverything.close(), bareDrift.close()]);
  });
  /** `tool_pins` entries for `tools` of server `server`; `spoil` gets a wrong schema_hash. */
  const pins = (server: string, tools: Listed[], spoil?: string) =>
    tools
      .map((t) => {
        const pin = pinForTool(t, undefined, server);
        const schema = t.name === spoil ? "0".repeat(64) : pin.schema_hash;
        return `  ${JSON.stringify(`${server}/${t.name}`)}:\n    server_id: ${server}\n    tool_name: ${JSON.stringify(t.name)}\n    schema_hash: "${schema}"\n    meta_hash: "${pin.meta_hash}"\n`;
      })
      .join("");
  const policy = (block: string, enforcement = "") =>
    `version: "2.0"\ntool_pins:\n${block}enforcement: { unconstrained_tools: allow${enforcement} }\n`;
  const names = async (c: { client: Client }) => (await c.client.listTools()).tools.map((t) => t.name);
  /** What serve answers for a tool that does not exist, with `name` in place of the missing one. */
  const unknownAnswer = async (c: { client: Client }, server: string, name: string) => {
    const missing = `${server}__zz-missing-tool`;
    const answer = await outcome(c.client.callTool({ name: missing, arguments: {} }));
    return JSON.parse(JSON.stringify(answer).split(missing).join(name)) as unknown;
  };

  it("correct pins: every tool is visible and callable, even with unpinned tools denied", async () => {
    const c = await served(
      world(
        { everything: { command: NODE, args: [EVERYTHING_SERVER] } },
        policy(pins("everything", everythingTools), ", unpinned_tools: deny"),
      ),
    );
    expect(await names(c)).toEqual(everythingTools.map((t) => `everything__${t.name}`));
    expect(await call(c, "everything__echo", { message: "pinned" })).toMatchObject({
      content: [{ type: "text", text: "Echo: pinned" }],
    });
  });

  it("a wrong hash withholds the tool; unpinned_tools: deny withholds tools without a pin; neither call reaches the server", async () => {
    const pinned = everythingTools.filter((t) => t.name === "echo" || t.name === "get-sum");
    const c = await served(
      world(
        { everything: { command: NODE, args: [EVERYTHING_SERVER] } },
        policy(pins("everything", pinned, "echo"), ", unpinned_tools: deny"),
      ),
    );
    expect(await names(c)).toEqual(["everything__get-sum"]);
    // Never shown to this client: answered exactly as a tool the server does not have.
    for (const tool of ["everything__echo", "everything__get-env"]) {
      expect(await outcome(c.client.callTool({ name: tool, arguments: { message: "x" } }))).toEqual(
        await unknownAnswer(c, "everything", tool),
      );
    }
    const events = callEvents(c.auditLog);
    expect(events.find((e) => e.tool === "echo")).toMatchObject({
      server: "everything",
      decision: "hidden",
      code: "E_TOOL_DRIFT",
      rule: { kind: "tool_pins" },
    });
    expect(events.find((e) => e.tool === "get-env")).toMatchObject({
      decision: "hidden",
      code: "E_TOOL_DRIFT",
      rule: { kind: "enforcement.unpinned_tools" },
    });
    const listed = readAudit(c.auditLog).find((e) => e.event === "tools/list");
    expect(listed).toMatchObject({ server: "everything", shown: 1, hidden: everythingTools.length - 1 });
  });

  it("a tool that drifts after it was shown is withheld from the next list, and its call is denied with E_TOOL_DRIFT", async () => {
    const c = await served(
      world({ drift: { command: NODE, args: [DRIFT_SERVER] } }, policy(pins("drift", driftTools))),
    );
    const changed: string[] = [];
    c.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed.push("tools"));
    expect(await names(c)).toEqual(["drift__echo", "drift__tighten"]);
    expect(await call(c, "drift__echo", { message: "hello" })).toMatchObject({
      content: [{ type: "text", text: "echo: hello" }],
    });
    expect((await call(c, "drift__tighten", {})).isError).toBeFalsy();
    await until(() => changed.length > 0);

    const result = await call(c, "drift__echo", { message: "again" });
    expect(result.isError).toBe(true);
    expect(denial(result).code).toBe("E_TOOL_DRIFT");
    expect(denial(result).text).toContain("inputSchema changed");
    expect(await names(c)).toEqual(["drift__tighten"]);
    expect(callEvents(c.auditLog, "echo").map((e) => [e.decision, e.code])).toEqual([
      ["allow", null],
      ["deny", "E_TOOL_DRIFT"],
    ]);
  });
});

/** The big-integer fixture over Streamable HTTP (JSON answers) on 127.0.0.1: POST /<n> answers with `n`. */
async function bigintOverHttp(): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString("utf8")));
    req.on("end", () => {
      const text = answerText(JSON.parse(body), (req.url ?? "/").slice(1));
      if (text === null) res.writeHead(202).end();
      else res.writeHead(200, { "content-type": "application/json" }).end(text);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    close: () => {
      http.closeAllConnections();
      return new Promise((resolve) => http.close(() => resolve()));
    },
  };
}

describe.each(["stdio", "http"] as const)(
  "exact pins (exact_schema_hash) through serve: the big-integer fixture over %s",
  (kind) => {
    let block: string;
    let entry: (n: string) => Record<string, unknown>;
    beforeAll(async () => {
      if (kind === "stdio") {
        entry = (n) => ({ command: NODE, args: [BIGINT_SERVER, n] });
      } else {
        const fixture = await bigintOverHttp();
        open.push(fixture);
        entry = (n) => ({ type: "http", url: `${fixture.url}/${n}` });
      }
      // The pins as `toolgate pin` prints them for the mcp.json entry (server_id: its name).
      const pinned = world({ bigint: entry(BIG) }, "");
      const run = await runCli(["pin", "--config-dir", pinned.dir, "--server", "bigint"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      block = run.stdout;
      expect(block).toContain("exact_schema_hash");
    });
    const shown = async (n: string): Promise<string[]> => {
      const c = await served(
        world({ bigint: entry(n) }, `version: "2.0"\nenforcement:\n  unpinned_tools: deny\n\n${block}`),
      );
      const names = (await c.client.listTools()).tools.map((t) => t.name).sort();
      const bounded = await call(c, "bigint__bounded", { n: 1 });
      return [...names, bounded.content[0]?.text ?? ""];
    };

    it("the pinned server's tools are all shown, the exactly pinned one included, and it can be called", async () => {
      expect(await shown(BIG)).toEqual([
        "bigint__1.0",
        "bigint__a: b",
        "bigint__bounded",
        "bigint__plain",
        "bigint__yes",
        "called bounded",
      ]);
    });

    it("the same server with 2^53 in place of 2^53+1 (same schema_hash) has 'bounded' withheld", async () => {
      expect(await shown(NEIGHBOUR)).toEqual([
        "bigint__1.0",
        "bigint__a: b",
        "bigint__plain",
        "bigint__yes",
        "MCP error -32602: Tool bigint__bounded not found",
      ]);
    });
  },
);
