// `node dist/bench/serve.js`: the official SDK client over Streamable HTTP → `toolgate serve --http` (an
// allow-all policy, so every call is decided and audited nowhere) → stdio server-everything `echo`, beside
// supergateway 4.0.0 bridging the same server without any policy, in the same run, at concurrency 1 and 16.
// toolgate is measured with the v1 client (the legacy era, as supergateway) and with the v2 client in both
// eras: a legacy session, and revision 2026-07-28, which has no session to look up; and with a raw keep-alive
// HTTP client in both eras, so the gateway's two paths compare without a client library's own costs.
// Both run stateful (one server process per session, reused for every call); rounds are interleaved so drift
// on a shared machine hits both alike. supergateway binds every interface and has no host flag, so it runs
// with a preload (bench/loopbackListen.cjs) that keeps it on 127.0.0.1.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect as netConnect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { cpuMs } from "./processCpu.js";
import { RawHttpClient } from "./rawHttpClient.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpTransport,
} from "@modelcontextprotocol/client";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(root, "dist/cli.js");
const everything = join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const supergateway = join(root, "node_modules/supergateway/dist/index.js");
const loopbackPreload = join(root, "bench/loopbackListen.cjs");

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CALLS_PER_ROUND = Number(process.env.BENCH_CALLS ?? 250);
const WARMUP_CALLS = 300;
const CONCURRENCY = [1, 16];
const TOKEN = "bench-token-0123456789abcdef";

const ALLOW_ALL = `version: "2.0"
name: bench-allow-all
tools:
  allow: ["*"]
enforcement:
  unconstrained_tools: allow
`;

interface Variant {
  name: string;
  url: string;
  headers: Record<string, string>;
  tool: string;
  /** Which client: the v1 SDK (legacy era), or the v2 SDK in the legacy era or pinned to 2026-07-28. */
  sdk: "v1" | "v2-legacy" | "v2-2026" | "raw-legacy" | "raw-2026";
  client?: {
    callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
    close(): Promise<void>;
  };
  /** Per concurrency: latency samples (ns) and total wall time (ns) over all rounds. */
  samples: Map<number, number[]>;
  wallNs: Map<number, number>;
  /** The gateway's process, and the CPU it spent (ms) while this variant's calls ran. */
  pid?: number;
  cpuMs: Map<number, number>;
  /** The CPU the client (this process) spent (µs) on this variant's calls. */
  clientCpuUs: Map<number, number>;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((done) => {
      const socket = netConnect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        done(true);
      });
      socket.once("error", () => done(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function startToolgate(dir: string): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(
    process.execPath,
    [
      cli,
      "serve",
      "--config-dir",
      dir,
      "--http",
      "0",
      "--token",
      TOKEN,
      "--policy",
      join(dir, "allow-all.yaml"),
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TOOLGATE_CONFIG_DIR: "" } },
  );
  let stderr = "";
  return new Promise((resolveStart, reject) => {
    proc.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      const m = /serving MCP \(\w+ mode\) on (http:\/\/\S+)/.exec(stderr);
      if (m !== null) resolveStart({ proc, url: m[1]! });
    });
    proc.once("exit", (code) => reject(new Error(`toolgate serve exited (${code}): ${stderr}`)));
  });
}

async function startSupergateway(): Promise<{ proc: ChildProcess; url: string }> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [
      "--require",
      loopbackPreload,
      supergateway,
      "--stdio",
      `${process.execPath} ${everything}`,
      "--outputTransport",
      "streamableHttp",
      "--stateful",
      "--port",
      String(port),
      "--logLevel",
      "none",
    ],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  await waitForPort(port, 15_000);
  return { proc, url: `http://127.0.0.1:${port}/mcp` };
}

async function connect(variant: Variant): Promise<void> {
  const info = { name: "toolgate-bench", version: "1.0.0" };
  const requestInit = { headers: variant.headers };
  if (variant.sdk === "raw-legacy" || variant.sdk === "raw-2026") {
    variant.client = await RawHttpClient.connect(
      variant.url,
      TOKEN,
      variant.sdk === "raw-legacy" ? "legacy" : "2026-07-28",
    );
    return;
  }
  if (variant.sdk === "v1") {
    const client = new Client(info);
    await client.connect(new StreamableHTTPClientTransport(new URL(variant.url), { requestInit }));
    variant.client = client;
    return;
  }
  const client = new V2Client(info, {
    versionNegotiation: { mode: variant.sdk === "v2-2026" ? { pin: "2026-07-28" } : "legacy" },
  });
  await client.connect(new V2HttpTransport(new URL(variant.url), { requestInit }));
  variant.client = client;
}

async function callEcho(variant: Variant, i: number): Promise<void> {
  const result = (await variant.client!.callTool({
    name: variant.tool,
    arguments: { message: `m${i}` },
  })) as {
    isError?: boolean;
  };
  if (result.isError === true) throw new Error(`${variant.name}: echo failed: ${JSON.stringify(result)}`);
}

/** `count` calls with `concurrency` in flight at a time; each call's latency and the batch's wall time. */
async function run(variant: Variant, concurrency: number, count: number): Promise<void> {
  const samples = variant.samples.get(concurrency) ?? [];
  variant.samples.set(concurrency, samples);
  let next = 0;
  const cpuBefore = cpuMs(variant.pid);
  const clientBefore = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const start = process.hrtime.bigint();
        await callEcho(variant, i);
        samples.push(Number(process.hrtime.bigint() - start));
      }
    }),
  );
  variant.wallNs.set(
    concurrency,
    (variant.wallNs.get(concurrency) ?? 0) + Number(process.hrtime.bigint() - t0),
  );
  const clientUsed = process.cpuUsage(clientBefore);
  variant.clientCpuUs.set(
    concurrency,
    (variant.clientCpuUs.get(concurrency) ?? 0) + clientUsed.user + clientUsed.system,
  );
  const cpuAfter = cpuMs(variant.pid);
  if (cpuBefore !== null && cpuAfter !== null) {
    variant.cpuMs.set(concurrency, (variant.cpuMs.get(concurrency) ?? 0) + cpuAfter - cpuBefore);
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const us = (ns: number): string => (ns / 1000).toFixed(0);

async function main(): Promise<void> {
  for (const path of [cli, everything, supergateway, loopbackPreload]) {
    if (!existsSync(path)) throw new Error(`missing ${path}: run \`npm ci && npm run build\``);
  }
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-serve-"));
  writeFileSync(join(dir, "allow-all.yaml"), ALLOW_ALL);
  writeFileSync(
    join(dir, "mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything] } } }),
  );
  writeFileSync(join(dir, "config.yaml"), "enabled_mcp_servers: all\n");

  const processes: ChildProcess[] = [];
  try {
    const toolgate = await startToolgate(dir);
    processes.push(toolgate.proc);
    const bridge = await startSupergateway();
    processes.push(bridge.proc);
    const gateway = (name: string, sdk: Variant["sdk"]): Variant => ({
      name,
      url: toolgate.url,
      headers: { Authorization: `Bearer ${TOKEN}` },
      tool: "everything__echo",
      sdk,
      ...(toolgate.proc.pid === undefined ? {} : { pid: toolgate.proc.pid }),
      samples: new Map(),
      wallNs: new Map(),
      cpuMs: new Map(),
      clientCpuUs: new Map(),
    });
    const variants: Variant[] = [
      gateway("toolgate serve (allow-all policy), v1 client", "v1"),
      {
        name: "supergateway --stateful (no policy), v1 client",
        url: bridge.url,
        headers: {},
        tool: "echo",
        sdk: "v1",
        samples: new Map(),
        wallNs: new Map(),
        cpuMs: new Map(),
        clientCpuUs: new Map(),
      },
      gateway("toolgate serve, v2 client, legacy session (2025-11-25)", "v2-legacy"),
      gateway("toolgate serve, v2 client, 2026-07-28 (no session)", "v2-2026"),
      gateway("toolgate serve, raw HTTP client, legacy session", "raw-legacy"),
      gateway("toolgate serve, raw HTTP client, 2026-07-28 (no session)", "raw-2026"),
    ];
    for (const v of variants) await connect(v);
    for (const v of variants) for (let i = 0; i < WARMUP_CALLS; i++) await callEcho(v, i);

    console.log(
      `\ntoolgate serve — SDK client over Streamable HTTP → gateway → stdio server-everything echo (node ${process.version})`,
    );
    console.log(
      `${ROUNDS} rounds × ${CALLS_PER_ROUND} calls per variant and concurrency, interleaved; ${WARMUP_CALLS} warm-up calls each`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const concurrency of CONCURRENCY) {
        for (let k = 0; k < variants.length; k++) {
          await run(variants[(round + k) % variants.length]!, concurrency, CALLS_PER_ROUND);
        }
      }
    }
    for (const v of variants) await v.client!.close();

    console.log(
      "| concurrency | variant | median µs | p99 µs | calls/s | median vs supergateway | gateway CPU µs per call | client CPU µs per call |",
    );
    console.log("|---:|---|---:|---:|---:|---:|---:|---:|");
    for (const concurrency of CONCURRENCY) {
      const stats = variants.map((v) => {
        const sorted = [...v.samples.get(concurrency)!].sort((a, b) => a - b);
        return {
          v,
          p50: percentile(sorted, 0.5),
          p99: percentile(sorted, 0.99),
          perSecond: sorted.length / (v.wallNs.get(concurrency)! / 1e9),
          cpuUs: v.cpuMs.has(concurrency) ? (v.cpuMs.get(concurrency)! * 1000) / sorted.length : null,
          clientUs: v.clientCpuUs.get(concurrency)! / sorted.length,
        };
      });
      const bridgeP50 = stats[1]!.p50;
      for (const s of stats) {
        const ratio = s === stats[1] ? "1.00×" : `${(s.p50 / bridgeP50).toFixed(2)}×`;
        console.log(
          `| ${concurrency} | ${s.v.name} | ${us(s.p50)} | ${us(s.p99)} | ${Math.round(s.perSecond).toLocaleString("en-US")} | ${ratio} | ${s.cpuUs === null ? "—" : s.cpuUs.toFixed(0)} | ${s.clientUs.toFixed(0)} |`,
        );
      }
    }
  } finally {
    for (const p of processes) p.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
