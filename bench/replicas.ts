// `node dist/bench/replicas.js`: what shared state in Redis and a second replica behind nginx do to
// `toolgate serve --http`. The v2 SDK client pinned to 2026-07-28 (no session, so any replica can answer
// any call) calls server-everything's `echo` through four variants, in the same run, rounds interleaved,
// at concurrency 1 and 16:
//   1. one replica, --state memory (the baseline);
//   2. one replica, --state redis (what Redis adds per call);
//   3. two replicas behind nginx round robin, --state redis;
//   4. one replica behind nginx, --state redis (nginx's own cost, apart from the second replica's gain).
// Every variant runs the same policy, with `limits:` so every call is counted in the store (in Redis, one
// atomic count per call). Each variant has replicas of its own (five in all); each batch of timed calls
// is preceded by a few untimed ones, so a replica that idled while the others ran is warm again.
// Debian's redis-server and nginx run in the foreground on free 127.0.0.1 ports with files of their own;
// every process started here is stopped by its pid. Without redis-server or nginx the section is skipped.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, connect as netConnect } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { cpuMs } from "./processCpu.js";
import { nginxConf, redisArgs } from "./realServices.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(root, "dist/cli.js");
const everything = join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CALLS_PER_ROUND = Number(process.env.BENCH_CALLS ?? 250);
const WARMUP_CALLS = 300;
const BATCH_WARMUP_CALLS = 25;
const CONCURRENCY = [1, 16];
/** The whole section is stopped (every process it started too) if it runs longer than this. */
const WATCHDOG_MS = 240_000;
const MODERN = "2026-07-28";
const TOKEN = "bench-replica-token-0123456789abcdef";
const STATE_SECRET = "bench-replica-state-secret-0123456789abcdef";

// Limits make every call count in the store: in memory for the baseline, in Redis for the others.
const POLICY = `version: "2.0"
name: bench-allow-all-counted
tools:
  allow: ["*"]
enforcement:
  unconstrained_tools: allow
limits: { max_tool_calls_total: 100000000 }
`;

/** A process this bench started: stopped by its pid, SIGKILL if SIGTERM has not ended it in 5 s. */
interface Started {
  name: string;
  proc: ChildProcess;
  stderr: () => string;
}

const started: Started[] = [];

async function stop(p: Started): Promise<void> {
  const { proc } = p;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  proc.kill("SIGTERM");
  const kill = setTimeout(() => proc.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(kill);
}

async function stopAll(): Promise<void> {
  // nginx first (it holds connections to the replicas), Redis last (the replicas hold connections to it).
  const order = [...started].sort((a, b) => rank(a) - rank(b));
  for (const p of order) await stop(p);
}
const rank = (p: Started): number => (p.name.startsWith("nginx") ? 0 : p.name === "redis" ? 2 : 1);

function track(name: string, proc: ChildProcess): Started {
  let stderr = "";
  proc.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString("utf8")).slice(-64 * 1024);
  });
  const s = { name, proc, stderr: () => stderr };
  started.push(s);
  return s;
}

function commandExists(name: string): boolean {
  return spawnSync("sh", ["-c", 'command -v "$1"', "sh", name], { encoding: "utf8" }).status === 0;
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

async function waitFor(probe: () => Promise<boolean>, what: string, proc: Started, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (proc.proc.exitCode !== null)
      throw new Error(`${what} exited (${proc.proc.exitCode}): ${proc.stderr()}`);
    if (Date.now() > deadline)
      throw new Error(`${what} did not come up in ${timeoutMs} ms: ${proc.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `PING` over a plain socket: ready when Redis answers `+PONG` (no redis-cli needed). */
function redisPing(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = netConnect(port, "127.0.0.1");
    let answer = "";
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (d: Buffer) => {
      answer += d.toString("utf8");
      if (answer.includes("\r\n")) finish(answer.startsWith("+PONG"));
    });
    socket.once("error", () => finish(false));
  });
}

/** redis-server in the foreground on 127.0.0.1, no persistence, its files in `dir`. */
async function startRedis(dir: string): Promise<{ url: string; s: Started }> {
  const port = await freePort();
  mkdirSync(dir);
  const proc = spawn("redis-server", redisArgs(port, dir), { stdio: ["ignore", "ignore", "pipe"] });
  const s = track("redis", proc);
  await waitFor(() => redisPing(port), "redis-server", s);
  return { url: `redis://127.0.0.1:${port}`, s };
}

/**
 * nginx in the foreground on 127.0.0.1:`port` as a plain round-robin balancer over `upstreams`, streaming
 * event streams through (the replica tests' configuration, without the access log: the proxying alone).
 */
async function startNginx(name: string, dir: string, port: number, upstreams: string[]): Promise<Started> {
  mkdirSync(dir);
  const conf = join(dir, "nginx.conf");
  writeFileSync(conf, nginxConf(dir, port, upstreams));
  const proc = spawn("nginx", ["-p", dir, "-e", join(dir, "error.log"), "-c", conf], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const s = track(name, proc);
  await waitFor(
    () =>
      fetch(`http://127.0.0.1:${port}/`)
        .then(() => true)
        .catch(() => false),
    name,
    s,
  );
  return s;
}

/** `toolgate serve --http 0` with `--state`; resolves with its URL once it listens. */
function startReplica(
  name: string,
  dir: string,
  state: string,
  nginxPorts: number[],
): Promise<{ url: string; s: Started }> {
  const proc = spawn(
    process.execPath,
    [
      cli,
      "serve",
      "--config-dir",
      dir,
      "--http",
      "0",
      "--tokens",
      join(dir, "tokens.yaml"),
      "--policy",
      join(dir, "policy.yaml"),
      "--state",
      state,
      ...nginxPorts.flatMap((p) => ["--allowed-host", `127.0.0.1:${p}`]),
    ],
    {
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        ...process.env,
        TOOLGATE_CONFIG_DIR: "",
        TOOLGATE_TOKEN: "",
        TOOLGATE_STATE_SECRET: state === "memory" ? "" : STATE_SECRET,
      },
    },
  );
  const s = track(name, proc);
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${s.stderr()}`)), 15_000);
    proc.stderr!.on("data", () => {
      const m = /serving MCP \(\w+ mode\) on (http:\/\/\S+)/.exec(s.stderr());
      if (m !== null) {
        clearTimeout(timer);
        resolveStart({ url: m[1]!, s });
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}): ${s.stderr()}`));
    });
  });
}

/** Every process below `pids` (a replica's upstream servers, nginx's worker), from /proc. */
function descendants(pids: readonly number[]): number[] {
  const found = new Set<number>();
  let frontier = new Set(pids);
  for (let depth = 0; depth < 4 && frontier.size > 0; depth++) {
    const next = new Set<number>();
    let entries: string[];
    try {
      entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
    } catch {
      return [];
    }
    for (const e of entries) {
      try {
        const ppid = Number(readFileSync(`/proc/${e}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
        if (frontier.has(ppid)) next.add(Number(e));
      } catch {
        // gone since the listing
      }
    }
    for (const p of next) found.add(p);
    frontier = next;
  }
  return [...found];
}

const GROUPS = ["toolgate", "upstream", "redis", "nginx"] as const;
type Group = (typeof GROUPS)[number];

/** CPU (ms) each group of processes has used so far; `null` where /proc cannot tell. */
function groupCpu(groups: Record<Group, number[]>): Record<Group, number | null> {
  const out = {} as Record<Group, number | null>;
  for (const g of GROUPS) {
    let sum: number | null = 0;
    for (const pid of groups[g]) {
      const ms = cpuMs(pid);
      if (ms === null) {
        sum = null;
        break;
      }
      sum += ms;
    }
    out[g] = sum;
  }
  return out;
}

interface Variant {
  name: string;
  url: string;
  client?: Client;
  /** Per concurrency: latency samples (ns) and total wall time (ns) over all rounds. */
  samples: Map<number, number[]>;
  wallNs: Map<number, number>;
  /** Per concurrency: CPU (ms) each group of processes used while this variant's calls ran. */
  cpuMs: Map<number, Record<Group, number>>;
  /** The CPU the client (this process) spent (µs) on this variant's calls. */
  clientCpuUs: Map<number, number>;
}

const variant = (name: string, url: string): Variant => ({
  name,
  url,
  samples: new Map(),
  wallNs: new Map(),
  cpuMs: new Map(),
  clientCpuUs: new Map(),
});

async function connect(v: Variant): Promise<void> {
  const client = new Client(
    { name: "toolgate-bench-replicas", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(v.url), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  v.client = client;
}

async function callEcho(v: Variant, i: number): Promise<void> {
  const result = await v.client!.callTool({ name: "everything__echo", arguments: { message: `m${i}` } });
  if (result.isError === true) throw new Error(`${v.name}: echo failed: ${JSON.stringify(result)}`);
}

/** `count` calls with `concurrency` in flight at a time; each call's latency, the batch's wall and CPU time. */
async function run(
  v: Variant,
  concurrency: number,
  count: number,
  pids: Record<Group, number[]>,
): Promise<void> {
  const samples = v.samples.get(concurrency) ?? [];
  v.samples.set(concurrency, samples);
  for (let i = 0; i < BATCH_WARMUP_CALLS; i++) await callEcho(v, i);
  let next = 0;
  const cpuBefore = groupCpu(pids);
  const clientBefore = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const start = process.hrtime.bigint();
        await callEcho(v, i);
        samples.push(Number(process.hrtime.bigint() - start));
      }
    }),
  );
  v.wallNs.set(concurrency, (v.wallNs.get(concurrency) ?? 0) + Number(process.hrtime.bigint() - t0));
  const clientUsed = process.cpuUsage(clientBefore);
  v.clientCpuUs.set(concurrency, (v.clientCpuUs.get(concurrency) ?? 0) + clientUsed.user + clientUsed.system);
  const cpuAfter = groupCpu(pids);
  const acc = v.cpuMs.get(concurrency) ?? { toolgate: 0, upstream: 0, redis: 0, nginx: 0 };
  for (const g of GROUPS) {
    const before = cpuBefore[g];
    const after = cpuAfter[g];
    acc[g] += before === null || after === null ? NaN : after - before;
  }
  v.cpuMs.set(concurrency, acc);
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const us = (ns: number): string => (ns / 1000).toFixed(0);
const perCall = (ms: number, calls: number): string =>
  Number.isNaN(ms) ? "—" : ((ms * 1000) / calls).toFixed(0);

async function main(): Promise<void> {
  for (const path of [cli, everything]) {
    if (!existsSync(path)) throw new Error(`missing ${path}: run \`npm ci && npm run build\``);
  }
  const missing = ["redis-server", "nginx"].filter((c) => !commandExists(c));
  if (missing.length > 0) {
    console.log(
      `\ntoolgate serve replicas (Redis, nginx): section skipped — ${missing.join(" and ")} not found on PATH ` +
        "(install Debian's redis-server and nginx to run it)",
    );
    return;
  }

  const sectionStart = Date.now();
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-replicas-"));
  writeFileSync(join(dir, "policy.yaml"), POLICY);
  writeFileSync(join(dir, "tokens.yaml"), `- name: bench\n  token: ${TOKEN}\n`);
  writeFileSync(
    join(dir, "mcp.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything] } } }),
  );
  writeFileSync(join(dir, "config.yaml"), "enabled_mcp_servers: all\n");

  const watchdog = setTimeout(() => {
    console.error(`bench failed: the replica section ran over ${WATCHDOG_MS / 1000} s; stopping it`);
    void stopAll().finally(() => process.exit(1));
  }, WATCHDOG_MS);
  watchdog.unref();

  const variants: Variant[] = [];
  try {
    const redis = await startRedis(join(dir, "redis"));
    const onePort = await freePort();
    let twoPort = await freePort();
    for (let i = 0; twoPort === onePort && i < 10; i++) twoPort = await freePort();
    const ports = [onePort, twoPort];
    // One replica per role, so each process serves one variant and idles alike between its batches (a
    // process that serves more of the run stays warmer, and is cheaper per call, than one that serves less).
    const [memory, alone, single, pairA, pairB] = await Promise.all([
      startReplica("replica memory", dir, "memory", ports),
      startReplica("replica redis", dir, redis.url, ports),
      startReplica("replica redis behind nginx", dir, redis.url, ports),
      startReplica("replica redis A of two", dir, redis.url, ports),
      startReplica("replica redis B of two", dir, redis.url, ports),
    ]);
    const replicas = [memory, alone, single, pairA, pairB];
    const hostOf = (r: { url: string }) => new URL(r.url).host;
    await startNginx("nginx (one)", join(dir, "nginx-one"), onePort, [hostOf(single)]);
    await startNginx("nginx (two)", join(dir, "nginx-two"), twoPort, [hostOf(pairA), hostOf(pairB)]);

    variants.push(
      variant("1. one replica, --state memory", memory.url),
      variant("2. one replica, --state redis", alone.url),
      variant("3. two replicas behind nginx, --state redis", `http://127.0.0.1:${twoPort}/mcp`),
      variant("4. one replica behind nginx, --state redis", `http://127.0.0.1:${onePort}/mcp`),
    );
    for (const v of variants) await connect(v);
    for (const v of variants) for (let i = 0; i < WARMUP_CALLS; i++) await callEcho(v, i);

    // After the warm-up every replica has started its upstream server and nginx its worker.
    const replicaPids = replicas.map((r) => r.s.proc.pid!);
    const nginxPids = started.filter((s) => s.name.startsWith("nginx")).map((s) => s.proc.pid!);
    const pids: Record<Group, number[]> = {
      toolgate: replicaPids,
      upstream: descendants(replicaPids),
      redis: [redis.s.proc.pid!],
      nginx: [...nginxPids, ...descendants(nginxPids)],
    };

    console.log(
      `\ntoolgate serve replicas — v2 SDK client (${MODERN}) over Streamable HTTP → replica(s) → stdio ` +
        `server-everything echo; policy with limits (every call counted in the store) (node ${process.version}, ` +
        `${availableParallelism()} cores shared by the client, every replica, Redis and nginx)`,
    );
    console.log(
      `${ROUNDS} rounds × ${CALLS_PER_ROUND} calls per variant and concurrency, interleaved; ${WARMUP_CALLS} warm-up ` +
        `calls each, and ${BATCH_WARMUP_CALLS} untimed calls before every batch`,
    );
    const t0 = Date.now();
    const startS = (t0 - sectionStart) / 1000;
    for (let round = 0; round < ROUNDS; round++) {
      for (const concurrency of CONCURRENCY) {
        for (let k = 0; k < variants.length; k++) {
          await run(variants[(round + k) % variants.length]!, concurrency, CALLS_PER_ROUND, pids);
        }
      }
    }
    const measuredS = (Date.now() - t0) / 1000;

    console.log(
      "| concurrency | variant | median µs | p99 µs | calls/s | toolgate CPU µs/call | upstream CPU µs/call | Redis CPU µs/call | nginx CPU µs/call | client CPU µs/call |",
    );
    console.log("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    const perSecond = new Map<string, number>();
    const p50 = new Map<string, number>();
    for (const concurrency of CONCURRENCY) {
      for (const [index, v] of variants.entries()) {
        const sorted = [...v.samples.get(concurrency)!].sort((x, y) => x - y);
        const calls = sorted.length;
        const rate = calls / (v.wallNs.get(concurrency)! / 1e9);
        perSecond.set(`${concurrency}/${index + 1}`, rate);
        p50.set(`${concurrency}/${index + 1}`, percentile(sorted, 0.5));
        const cpu = v.cpuMs.get(concurrency)!;
        console.log(
          `| ${concurrency} | ${v.name} | ${us(percentile(sorted, 0.5))} | ${us(percentile(sorted, 0.99))} | ` +
            `${Math.round(rate).toLocaleString("en-US")} | ${perCall(cpu.toolgate, calls)} | ` +
            `${perCall(cpu.upstream, calls)} | ${perCall(cpu.redis, calls)} | ${perCall(cpu.nginx, calls)} | ` +
            `${(v.clientCpuUs.get(concurrency)! / calls).toFixed(0)} |`,
        );
      }
    }
    console.log("\nratios of calls/s (same run):");
    for (const concurrency of CONCURRENCY) {
      const r = (x: number, y: number) =>
        perSecond.get(`${concurrency}/${x}`)! / perSecond.get(`${concurrency}/${y}`)!;
      const m = (x: number, y: number) => p50.get(`${concurrency}/${x}`)! / p50.get(`${concurrency}/${y}`)!;
      const redisRatio = r(2, 1);
      const aim = concurrency === 16 ? ` (aim ≥ 0.90: ${redisRatio >= 0.9 ? "met" : "not met"})` : "";
      console.log(
        `- concurrency ${concurrency}: redis ÷ memory ${redisRatio.toFixed(2)}×${aim}, median ${m(2, 1).toFixed(2)}×; ` +
          `two replicas ÷ one, both behind nginx ${r(3, 4).toFixed(2)}×, median ${m(3, 4).toFixed(2)}×; ` +
          `behind nginx ÷ direct (one replica, redis) ${r(4, 2).toFixed(2)}×, median ${m(4, 2).toFixed(2)}×`,
      );
    }
    console.log(
      `(measured rounds took ${measuredS.toFixed(1)} s, start-up and warm-up ${startS.toFixed(1)} s; on ${availableParallelism()} cores a second replica ` +
        "competes for the same cores as the first, the client, Redis and nginx; CPU columns sum every process " +
        "of the group, toolgate = the replicas, upstream = their server-everything)",
    );
  } finally {
    for (const v of variants) await v.client?.close().catch(() => undefined);
    await stopAll();
    clearTimeout(watchdog);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
