// `sharedMemoryBench()`: what sharing upstream servers saves in memory under `toolgate serve --http`. One
// token opens many HTTP sessions with the official v1 SDK client (Streamable HTTP) and lists its tools on
// each (which starts its servers); mcp.json has three real stdio servers (server-everything,
// server-filesystem, server-memory), config.yaml enables them all. Two variants, in the same run, each with
// its own `serve` process:
//   (a) the default: a token's sessions share one process per server;
//   (b) every entry with "share": "session": each session starts its own (the behaviour before sharing).
// With every session open and listed, /proc gives the number of processes below serve, serve's resident
// set (VmRSS, and its peak VmHWM) and the resident sets of serve and every process below it summed. A sum of
// RSS counts the pages processes share (the node binary, libraries) once per process, so the proportional
// set sizes (Pss, /proc/<pid>/smaps_rollup), which split each shared page among its users, are summed too.
// Every session is then ended (DELETE, then close) and serve stopped by its pid; its servers must be gone.
import { spawn, type ChildProcess } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(root, "dist/cli.js");
const modules = join(root, "node_modules/@modelcontextprotocol");
const everything = join(modules, "server-everything/dist/index.js");
const filesystem = join(modules, "server-filesystem/dist/index.js");
const memory = join(modules, "server-memory/dist/index.js");

/** Sessions of the shared variant, and of the per-session one (3 processes each). serve's default cap is 32. */
const SESSIONS = Number(process.env.BENCH_MEMORY_SESSIONS ?? 32);
const SESSIONS_PER_SESSION_SERVERS = Number(process.env.BENCH_MEMORY_SESSIONS_UNSHARED ?? SESSIONS);
const SERVERS = ["everything", "fs", "memory"] as const;
const TOKEN = "bench-memory-token-0123456789abcdef";
/** Bounds: one MCP request, waiting for processes to appear or go, the whole section. */
const REQUEST_TIMEOUT_MS = 30_000;
const SETTLE_TIMEOUT_MS = 20_000;
const SECTION_TIMEOUT_MS = 300_000;
/** A pause after the last listing before reading the resident sets (15 s read the same as 2 s). */
const QUIET_MS = Number(process.env.BENCH_MEMORY_QUIET_MS ?? 2000);

/** Issue targets for the shared variant. */
const TARGETS = { processes: 3, toolgateMb: 150, totalMb: 400 };

export interface MemoryFigures {
  variant: string;
  share: "principal" | "session";
  sessions: number;
  /** Processes below serve (its servers and anything they started). */
  processes: number;
  /** serve's VmRSS right after it started listening (no session yet), and with every session open. */
  toolgateIdleMb: number;
  toolgateMb: number;
  /** serve's peak resident set (VmHWM) over the variant. */
  toolgatePeakMb: number;
  /** VmRSS of serve plus every process below it, summed. */
  totalMb: number;
  /** Pss of serve plus every process below it, summed (shared pages split among their users). */
  totalPssMb: number;
  /** Seconds from the first session's initialize to the last one's tool list. */
  openS: number;
  /** Tools listed by each session (every session sees the same). */
  tools: number;
  /** Processes left below serve once every session was ended (the last member stops a shared server). */
  processesAfterClose: number;
  /** Processes that were below serve and still ran 10 s after it exited (then killed here, by pid). */
  leftAfterStop: number;
}

export interface SharedMemoryFigures {
  shared: MemoryFigures;
  perSession: MemoryFigures;
  /** perSession ÷ shared, for the same number of sessions when both used as many. */
  ratio: { processes: number; toolgateMb: number; totalMb: number; totalPssMb: number };
  targetsMet: { processes: boolean; toolgateMb: boolean; totalMb: boolean };
}

const mb = (kb: number): number => kb / 1024;

/** A `kB` field of /proc/<pid>/status (VmRSS, VmHWM); 0 once the process is gone. */
function statusKb(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

/** Pss (kB) from /proc/<pid>/smaps_rollup; 0 once the process is gone. */
function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

/** Direct children of `pid`, over all its threads (/proc/<pid>/task/<tid>/children). */
function children(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
      if (text !== "") out.push(...text.split(/\s+/).map(Number));
    } catch {
      // the thread ended since the listing
    }
  }
  return out;
}

/** Every process below `pid`, breadth first, bounded in depth and count. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  let frontier = [pid];
  for (let depth = 0; depth < 8 && frontier.length > 0 && found.length < 10_000; depth++) {
    const next = frontier.flatMap(children);
    found.push(...next);
    frontier = next;
  }
  return found;
}

/** True while `pid` exists and is not a zombie. */
function running(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `probe` every 100 ms until it holds or `timeoutMs` passes; the last value either way. */
async function settle<T>(probe: () => T, done: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = probe();
  while (!done(value) && Date.now() < deadline) {
    await sleep(100);
    value = probe();
  }
  return value;
}

interface Serve {
  proc: ChildProcess;
  pid: number;
  url: string;
  stderr: () => string;
}

function startServe(dir: string): Promise<Serve> {
  const proc = spawn(process.execPath, [cli, "serve", "--config-dir", dir, "--http", "0", "--token", TOKEN], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, TOOLGATE_CONFIG_DIR: "", TOOLGATE_TOKEN: "" },
  });
  let stderr = "";
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`serve did not start in 15 s: ${stderr}`));
    }, 15_000);
    proc.stderr!.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString("utf8")).slice(-64 * 1024);
      const m = /serving MCP \(\w+ mode\) on (http:\/\/\S+)/.exec(stderr);
      if (m !== null && proc.pid !== undefined) {
        clearTimeout(timer);
        resolveStart({ proc, pid: proc.pid, url: m[1]!, stderr: () => stderr });
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}): ${stderr}`));
    });
  });
}

/** SIGTERM, SIGKILL after 5 s; then waits (bounded) for the processes that were below it to be gone. */
async function stopServe(s: Serve): Promise<number[]> {
  const below = descendants(s.pid);
  if (s.proc.exitCode === null && s.proc.signalCode === null) {
    const exited = new Promise<void>((r) => s.proc.once("exit", () => r()));
    s.proc.kill("SIGTERM");
    const kill = setTimeout(() => s.proc.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(kill);
  }
  const left = await settle(
    () => below.filter(running),
    (l) => l.length === 0,
    10_000,
  );
  // Servers serve did not stop: ended here, by pid, so the run leaves nothing behind (and said in the report).
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  return left;
}

function writeConfig(dir: string, share: "principal" | "session"): void {
  const fsRoot = join(dir, "root");
  mkdirSync(fsRoot);
  writeFileSync(join(fsRoot, "hello.txt"), "hello\n");
  const extra = share === "session" ? { share: "session" } : {};
  const servers = {
    everything: { command: process.execPath, args: [everything], ...extra },
    fs: { command: process.execPath, args: [filesystem, fsRoot], ...extra },
    memory: {
      command: process.execPath,
      args: [memory],
      env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") },
      ...extra,
    },
  };
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2) + "\n");
  writeFileSync(join(dir, "config.yaml"), "enabled_mcp_servers: all\n");
}

interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function endSession(s: Session): Promise<void> {
  await withTimeout(s.transport.terminateSession(), 10_000, "DELETE of a session").catch(() => undefined);
  await withTimeout(s.client.close(), 10_000, "closing a client").catch(() => undefined);
}

async function measureVariant(
  variant: string,
  share: "principal" | "session",
  sessions: number,
  base: string,
  deadline: number,
): Promise<MemoryFigures> {
  const dir = join(base, share);
  mkdirSync(dir);
  writeConfig(dir, share);
  const serve = await startServe(dir);
  const open: Session[] = [];
  let figures: Omit<MemoryFigures, "leftAfterStop"> | undefined;
  let leftAfterStop: number;
  try {
    await sleep(500);
    const toolgateIdleMb = mb(statusKb(serve.pid, "VmRSS"));
    const expected = share === "session" ? SERVERS.length * sessions : SERVERS.length;
    let tools = -1;
    const t0 = Date.now();
    for (let i = 0; i < sessions; i++) {
      if (Date.now() > deadline) throw new Error(`${variant}: over the section's ${SECTION_TIMEOUT_MS} ms`);
      const transport = new StreamableHTTPClientTransport(new URL(serve.url), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      });
      const client = new Client({ name: "toolgate-bench-memory", version: "1.0.0" });
      open.push({ client, transport });
      await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
      const listed = (await client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS })).tools;
      for (const server of SERVERS) {
        if (!listed.some((t) => t.name.startsWith(`${server}__`))) {
          throw new Error(`${variant}: session ${i + 1} lists no tool of '${server}': ${serve.stderr()}`);
        }
      }
      if (tools !== -1 && listed.length !== tools) {
        throw new Error(`${variant}: session ${i + 1} lists ${listed.length} tools, the first ${tools}`);
      }
      tools = listed.length;
    }
    const openS = (Date.now() - t0) / 1000;
    await settle(
      () => descendants(serve.pid).length,
      (n) => n === expected,
      SETTLE_TIMEOUT_MS,
    );
    await sleep(QUIET_MS);
    const below = descendants(serve.pid);
    const toolgateKb = statusKb(serve.pid, "VmRSS");
    const totalKb = toolgateKb + below.reduce((sum, pid) => sum + statusKb(pid, "VmRSS"), 0);
    const totalPss = [serve.pid, ...below].reduce((sum, pid) => sum + pssKb(pid), 0);
    // Every session is still there (none was ended to make room): each answers a second listing.
    for (const [i, s] of open.entries()) {
      await s.client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS }).catch((e: unknown) => {
        throw new Error(`${variant}: session ${i + 1} no longer answers: ${String(e)}`);
      });
    }
    const toolgatePeakMb = mb(statusKb(serve.pid, "VmHWM"));
    for (const s of open.splice(0)) await endSession(s);
    const processesAfterClose = await settle(
      () => descendants(serve.pid).filter(running).length,
      (n) => n === 0,
      SETTLE_TIMEOUT_MS,
    );
    figures = {
      variant,
      share,
      sessions,
      processes: below.length,
      toolgateIdleMb,
      toolgateMb: mb(toolgateKb),
      toolgatePeakMb,
      totalMb: mb(totalKb),
      totalPssMb: mb(totalPss),
      openS,
      tools,
      processesAfterClose,
    };
  } finally {
    for (const s of open) await endSession(s);
    leftAfterStop = (await stopServe(serve)).length;
  }
  return { ...figures, leftAfterStop };
}

const f1 = (n: number): string => n.toFixed(1);

export async function sharedMemoryBench(): Promise<SharedMemoryFigures> {
  for (const path of [cli, everything, filesystem, memory]) {
    if (!existsSync(path)) throw new Error(`missing ${path}: run \`npm ci && npm run build\``);
  }
  const base = mkdtempSync(join(tmpdir(), "toolgate-bench-memory-"));
  const deadline = Date.now() + SECTION_TIMEOUT_MS;
  try {
    const shared = await measureVariant(
      "(a) shared per token (default)",
      "principal",
      SESSIONS,
      base,
      deadline,
    );
    const perSession = await measureVariant(
      '(b) "share": "session" on every entry',
      "session",
      SESSIONS_PER_SESSION_SERVERS,
      base,
      deadline,
    );

    console.log(
      `\ntoolgate serve --http, shared upstream servers: memory — one token, v1 SDK client sessions over ` +
        `Streamable HTTP, each listing its tools; 3 stdio servers (server-everything, server-filesystem, ` +
        `server-memory) (node ${process.version})`,
    );
    console.log(
      "| variant | sessions | server processes | toolgate MB at start | toolgate MB | toolgate peak MB | total RSS MB | total PSS MB | seconds to open and list | processes after close |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const v of [shared, perSession]) {
      console.log(
        `| ${v.variant} | ${v.sessions} | ${v.processes} | ${f1(v.toolgateIdleMb)} | ${f1(v.toolgateMb)} | ` +
          `${f1(v.toolgatePeakMb)} | ${f1(v.totalMb)} | ${f1(v.totalPssMb)} | ${v.openS.toFixed(1)} | ` +
          `${v.processesAfterClose} |`,
      );
      if (v.leftAfterStop > 0) {
        console.log(`(${v.variant}: ${v.leftAfterStop} processes outlived serve by 10 s; killed by pid)`);
      }
    }
    const ratio = {
      processes: perSession.processes / shared.processes,
      toolgateMb: perSession.toolgateMb / shared.toolgateMb,
      totalMb: perSession.totalMb / shared.totalMb,
      totalPssMb: perSession.totalPssMb / shared.totalPssMb,
    };
    const sameSessions = perSession.sessions === shared.sessions;
    console.log(
      `(b) ÷ (a)${sameSessions ? "" : ` (b with ${perSession.sessions} sessions, a with ${shared.sessions})`}: ` +
        `processes ${f1(ratio.processes)}×, toolgate RSS ${ratio.toolgateMb.toFixed(2)}×, total RSS ` +
        `${f1(ratio.totalMb)}×, total PSS ${f1(ratio.totalPssMb)}×`,
    );
    const targetsMet = {
      processes: shared.processes === TARGETS.processes,
      toolgateMb: shared.toolgateMb <= TARGETS.toolgateMb,
      totalMb: shared.totalMb <= TARGETS.totalMb,
    };
    const mark = (ok: boolean) => (ok ? "met" : "not met");
    console.log(
      `targets for (a): ${TARGETS.processes} server processes (${shared.processes}: ${mark(targetsMet.processes)}), ` +
        `toolgate ≤ ${TARGETS.toolgateMb} MB (${f1(shared.toolgateMb)}: ${mark(targetsMet.toolgateMb)}), ` +
        `everything ≤ ${TARGETS.totalMb} MB (${f1(shared.totalMb)} RSS: ${mark(targetsMet.totalMb)})`,
    );
    return { shared, perSession, ratio, targetsMet };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
