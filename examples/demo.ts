// `npm run demo`: toolgate wrap around the official filesystem MCP server, driven by the official SDK
// client the way an agent host would drive it. Shows what the model sees and what the audit log records.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(root, "dist/cli.js");
const policy = join(root, "examples/policy.yaml");
const server = join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

const bold = (s: string): string => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string): string => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: "toolgate-demo", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  return client;
}

interface Answer {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
}

function firstText(answer: Answer): string {
  const text = answer.content?.find((c) => c.type === "text")?.text ?? "";
  const line = text.split("\n")[0] ?? "";
  return line.length > 90 ? `${line.slice(0, 87)}...` : line;
}

async function main(): Promise<void> {
  for (const [what, path] of [
    ["the CLI bundle (run `npm run build`)", cli],
    ["@modelcontextprotocol/server-filesystem (run `npm ci`)", server],
  ] as const) {
    if (!existsSync(path)) throw new Error(`missing ${what}: ${path}`);
  }

  const dir = mkdtempSync(join(tmpdir(), "toolgate-demo-"));
  const workspace = join(dir, "workspace");
  const auditLog = join(dir, "audit.jsonl");
  mkdirSync(join(workspace, "src"), { recursive: true });
  writeFileSync(join(workspace, "notes.txt"), "Quarterly plan: ship toolgate wrap.\nSecond line.\n");
  writeFileSync(join(workspace, "src", "app.js"), "console.log('hello');\n");
  writeFileSync(join(workspace, ".env"), "API_KEY=sk-demo-not-a-real-key\n");

  console.log(bold("toolgate wrap demo"));
  console.log(`workspace  ${workspace}`);
  console.log(`policy     ${policy}`);
  console.log(`audit log  ${auditLog}\n`);

  const bare = await connect(process.execPath, [server, workspace]);
  const bareTools = (await bare.listTools()).tools.map((t) => t.name);
  await bare.close();

  const wrapArgs = [
    cli,
    "wrap",
    "--policy",
    policy,
    "--audit-log",
    auditLog,
    "--label",
    "demo",
    "--",
    process.execPath,
    server,
    workspace,
  ];
  console.log(dim(`$ node ${wrapArgs.map((a) => a.replace(root + "/", "")).join(" ")}\n`));
  const client = await connect(process.execPath, wrapArgs);

  const shown = (await client.listTools()).tools.map((t) => t.name);
  console.log(bold(`tools/list: the model sees ${shown.length} of the server's ${bareTools.length} tools`));
  console.log(`  shown   ${shown.join(", ")}`);
  console.log(`  hidden  ${bareTools.filter((t) => !shown.includes(t)).join(", ")}\n`);

  const calls: Array<{ why: string; name: string; args: Record<string, unknown> }> = [
    { why: "read a workspace file", name: "read_text_file", args: { path: "notes.txt" } },
    { why: "list the workspace", name: "list_directory", args: { path: "." } },
    { why: "escape the workspace", name: "read_text_file", args: { path: "../../etc/passwd" } },
    { why: "read a secret dotfile", name: "read_text_file", args: { path: ".env" } },
    {
      why: "pass an argument the schema does not know",
      name: "read_text_file",
      args: { path: "notes.txt", encoding: "latin1" },
    },
    {
      why: "write a file (denied, so hidden)",
      name: "write_file",
      args: { path: "pwned.txt", content: "rm -rf /" },
    },
    { why: "a tool the policy does not allow", name: "read_media_file", args: { path: "notes.txt" } },
    { why: "a tool that does not exist at all", name: "delete_everything", args: {} },
  ];

  console.log(bold("tools/call: what the model gets back"));
  for (const call of calls) {
    let line: string;
    try {
      const answer = (await client.callTool({ name: call.name, arguments: call.args })) as Answer;
      const text = firstText(answer);
      const verdict = !answer.isError
        ? "ALLOWED"
        : text.startsWith("Blocked by policy")
          ? "DENIED "
          : "UNKNOWN";
      line = `${verdict}  ${text}`;
    } catch (error) {
      line = `ERROR    ${(error as Error).message}`;
    }
    console.log(`  ${call.name}(${JSON.stringify(call.args)})  ${dim(`# ${call.why}`)}`);
    console.log(`    -> ${line}`);
  }
  await client.close();

  console.log(`\n  pwned.txt exists after the write_file call: ${existsSync(join(workspace, "pwned.txt"))}`);
  console.log(
    dim(
      "  (UNKNOWN is the server's own answer for a tool it does not have: hidden and absent look the same)\n",
    ),
  );

  console.log(bold("audit log: the real reason for every decision"));
  const events = readFileSync(auditLog, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const e of events) {
    if (e.event === "tools/list") {
      console.log(
        `  tools/list  ${String(e.decision)}: ${String(e.shown)} shown, ${String(e.hidden)} hidden`,
      );
      continue;
    }
    const rule = e.rule as { layer: string; kind: string; value: string } | null;
    const code = e.code === null ? "" : String(e.code);
    const why = rule === null ? String(e.reason) : `${rule.layer} ${rule.kind}: ${rule.value}`;
    console.log(
      `  ${String(e.tool).padEnd(18)} ${String(e.decision).padEnd(7)} ${code.padEnd(19)} ${dim(why)}`,
    );
  }
  console.log(`\n${bold("raw audit lines")} ${dim("(arguments appear only as args_sha256)")}`);
  for (const line of readFileSync(auditLog, "utf8").trim().split("\n")) console.log(`  ${line}`);

  rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
