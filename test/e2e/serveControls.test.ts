// What only toolgate serve does with the controls, against real servers and the official SDK client: one serve
// over Streamable HTTP with a token, three client sessions, each person asked about their own call only; exact
// pins (exact_schema_hash of integers beyond 2^53) over stdio and HTTP upstreams. The controls every surface
// shares (approval, artifacts, scope, redaction, pins, visibility, dry run, limits) are the conformance
// suite's: test/conformance, run against wrap and every serve surface alike.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configDir, mcpJson, runCli } from "./configDirHelpers.js";
import { answerText } from "./fixtures/bigintAnswers.mjs";
import { FILESYSTEM_SERVER, FIXTURES, NODE, readAudit, tempDir, type Connected } from "./helpers.js";
import { httpClient, serveHttp, serveStdio, TOKEN, type HttpServe } from "./serveHelpers.js";

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

const BIGINT_SERVER = join(FIXTURES, "bigintServer.mjs");
const BIG = "9007199254740993"; // 2^53 + 1
const NEIGHBOUR = "9007199254740992"; // 2^53: the same double

const open: Array<{ close: () => Promise<void> }> = [];
afterAll(async () => {
  for (const c of open.reverse()) await c.close().catch(() => {});
});

// A filesystem server-filesystem may reach entirely (its root is `root`); the policy's scope is `workspace`.
let root: string;
let workspace: string;
beforeAll(() => {
  root = tempDir("tg-serve-fs-");
  workspace = join(root, "workspace");
  mkdirSync(workspace, { recursive: true });
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

/** `toolgate serve --stdio` over the world, with an audit log. */
async function served(w: { dir: string; policy: string }): Promise<Connected> {
  const auditLog = join(w.dir, `audit-${open.length}.jsonl`);
  const c = await serveStdio(w.dir, ["--stdio", "--policy", w.policy, "--audit-log", auditLog]);
  open.push(c);
  return c;
}

const call = async (c: { client: Client }, name: string, args: Record<string, unknown>) =>
  (await c.client.callTool({ name, arguments: args })) as ToolResult;

const callEvents = (auditLog: string, tool?: string) =>
  readAudit(auditLog).filter((e) => e.event === "tools/call" && (tool === undefined || e.tool === tool));

describe("approval over Streamable HTTP with a token (one serve, three client sessions)", () => {
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
