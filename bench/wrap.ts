// `node dist/bench/wrap.js`: what `toolgate wrap` adds to a real MCP server, measured with the official SDK
// client. Per-call latency of server-everything's `echo` directly and through the wrapper (allow-all
// policy; and with an audit log), interleaved round by round so drift on a shared machine hits all
// alike; then start-up time from spawn to the `initialize` answer.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuMs } from "./processCpu.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(root, "dist/cli.js");
const server = join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const CALLS_PER_ROUND = Number(process.env.BENCH_CALLS ?? 200);
const WARMUP_CALLS = 500;
const STARTUP_RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 10);

/**
 * A Node process that only copies bytes both ways: the floor any stdio proxy written in Node pays for the
 * extra process hop (two more pipe writes, reads and wake-ups per call), before doing any work.
 */
const NULL_PROXY = `
const { spawn } = require("node:child_process");
const child = spawn(process.argv[1], process.argv.slice(2), { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on("close", (code) => process.exit(code ?? 1));
`;

const ALLOW_ALL = `version: "2.0"
name: bench-allow-all
tools:
  allow: ["*"]
enforcement:
  unconstrained_tools: allow
`;

interface Variant {
  name: string;
  command: string[];
  client?: Client;
  pid?: number;
  cpuMsBefore?: number | null;
  samplesNs: number[];
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

async function connect(variant: Variant): Promise<void> {
  const client = new Client({ name: "toolgate-bench", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: variant.command[0]!,
    args: variant.command.slice(1),
    stderr: "ignore",
  });
  await client.connect(transport);
  variant.client = client;
  variant.pid = transport.pid ?? undefined;
}

async function callEcho(client: Client, i: number): Promise<void> {
  const result = await client.callTool({ name: "echo", arguments: { message: `m${i}` } });
  if (result.isError === true) throw new Error(`echo failed: ${JSON.stringify(result)}`);
}

async function timeCalls(variant: Variant, count: number): Promise<void> {
  const client = variant.client!;
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    await callEcho(client, i);
    variant.samplesNs.push(Number(process.hrtime.bigint() - t0));
  }
}

/** Spawn → the `initialize` answer's first byte, one process. */
function startupOnce(command: string[]): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      if (out.includes('"id":1') && out.includes("\n")) {
        const ns = Number(process.hrtime.bigint() - t0);
        child.stdin.end();
        child.once("close", () => resolvePromise(ns));
      }
    });
    child.once("error", reject);
    child.stdin.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "bench", version: "1" },
        },
      }) + "\n",
    );
  });
}

const us = (ns: number): string => (ns / 1000).toFixed(1);
const ms = (ns: number): string => (ns / 1e6).toFixed(1);

async function main(): Promise<void> {
  for (const path of [cli, server]) {
    if (!existsSync(path)) throw new Error(`missing ${path}: run \`npm ci && npm run build\``);
  }
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  const policy = join(dir, "allow-all.yaml");
  writeFileSync(policy, ALLOW_ALL);
  const node = process.execPath;
  const direct = [node, server];
  const nullProxy = [node, "-e", NULL_PROXY, node, server];
  const wrapped = [node, cli, "wrap", "--policy", policy, "--", node, server];
  const audited = [
    node,
    cli,
    "wrap",
    "--policy",
    policy,
    "--audit-log",
    join(dir, "audit.jsonl"),
    "--",
    node,
    server,
  ];

  console.log(
    `\ntoolgate wrap — per-call latency, SDK client → server-everything echo (node ${process.version})`,
  );
  console.log(
    `${ROUNDS} rounds × ${CALLS_PER_ROUND} calls per variant, interleaved; ${WARMUP_CALLS} warm-up calls each`,
  );

  const variants: Variant[] = [
    { name: "direct", command: direct, samplesNs: [] },
    { name: "null proxy (bytes copied, no checks)", command: nullProxy, samplesNs: [] },
    { name: "wrap (allow-all policy)", command: wrapped, samplesNs: [] },
    { name: "wrap + audit log", command: audited, samplesNs: [] },
  ];
  for (const v of variants) await connect(v);
  for (const v of variants) {
    for (let i = 0; i < WARMUP_CALLS; i++) await callEcho(v.client!, i);
  }
  for (const v of variants) v.cpuMsBefore = cpuMs(v.pid);
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round so no variant always runs first.
    for (let k = 0; k < variants.length; k++) {
      await timeCalls(variants[(round + k) % variants.length]!, CALLS_PER_ROUND);
    }
  }
  const cpuPerCallUs = variants.map((v) => {
    const after = cpuMs(v.pid);
    if (after === null || v.cpuMsBefore === null || v.cpuMsBefore === undefined) return null;
    return ((after - v.cpuMsBefore) * 1000) / v.samplesNs.length;
  });
  for (const v of variants) await v.client!.close();

  const base = median(variants[0]!.samplesNs);
  console.log("| variant | median µs | p99 µs | added median µs | CPU µs per call, spawned process |");
  console.log("|---|---:|---:|---:|---:|");
  variants.forEach((v, i) => {
    const sorted = [...v.samplesNs].sort((x, y) => x - y);
    const p50 = percentile(sorted, 0.5);
    const added = i === 0 ? "—" : us(p50 - base);
    const cpu = cpuPerCallUs[i];
    const cpuText =
      cpu === null || cpu === undefined ? "n/a" : `${cpu.toFixed(0)}${i === 0 ? " (server)" : ""}`;
    console.log(`| ${v.name} | ${us(p50)} | ${us(percentile(sorted, 0.99))} | ${added} | ${cpuText} |`);
  });

  console.log(
    `\ntoolgate wrap — start-up, spawn → initialize answer, ${STARTUP_RUNS} runs each, alternating`,
  );
  const startDirect: number[] = [];
  const startWrapped: number[] = [];
  await startupOnce(direct); // warm the file cache
  await startupOnce(wrapped);
  if (STARTUP_RUNS < 1) return;
  for (let i = 0; i < STARTUP_RUNS; i++) {
    startDirect.push(await startupOnce(direct));
    startWrapped.push(await startupOnce(wrapped));
  }
  const d = median(startDirect);
  const w = median(startWrapped);
  console.log("| variant | median ms | min ms | max ms |");
  console.log("|---|---:|---:|---:|");
  console.log(`| direct | ${ms(d)} | ${ms(Math.min(...startDirect))} | ${ms(Math.max(...startDirect))} |`);
  console.log(
    `| wrap (allow-all policy) | ${ms(w)} | ${ms(Math.min(...startWrapped))} | ${ms(Math.max(...startWrapped))} |`,
  );
  console.log(`added start-up (median): ${ms(w - d)} ms`);

  rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
