// Real parts for the replica tests: Debian's redis-server and nginx, each started on 127.0.0.1 on a free
// port with files of its own (no persistence, its own pid and logs), and stopped by the pid the test holds.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers.js";
import { nginxConf, redisArgs } from "../../bench/realServices.js";

import { freePort } from "../support/redisServer.js";

export { freePort };

export function commandExists(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).status === 0;
}

async function waitFor(
  probe: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Running {
  url: string;
  port: number;
  proc: ChildProcess;
  stop(): Promise<void>;
}

function stopper(proc: ChildProcess): () => Promise<void> {
  return async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    proc.kill("SIGTERM");
    const kill = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(kill);
  };
}

/** redis-server in the foreground, no persistence; `port` to start it again where it was. */
export async function startRedis(port?: number): Promise<Running> {
  const p = port ?? (await freePort());
  const dir = tempDir("tg-redis-");
  const proc = spawn("redis-server", redisArgs(p, dir), { stdio: "ignore" });
  await waitFor(
    () => spawnSync("redis-cli", ["-p", String(p), "ping"], { encoding: "utf8" }).stdout.trim() === "PONG",
    "redis-server",
  );
  return { url: `redis://127.0.0.1:${p}`, port: p, proc, stop: stopper(proc) };
}

/** nginx in the foreground as a plain round-robin balancer over `upstreams` (host:port), streaming SSE through. */
export async function startNginx(
  upstreams: string[],
  options: { port?: number; sticky?: boolean } = {},
): Promise<Running> {
  const port = options.port ?? (await freePort());
  const dir = tempDir("tg-nginx-");
  const conf = join(dir, "nginx.conf");
  writeFileSync(conf, nginxConf(dir, port, upstreams, { sticky: options.sticky === true, accessLog: true }));
  const proc = spawn("nginx", ["-p", dir, "-c", conf], { stdio: "ignore" });
  await waitFor(
    () =>
      fetch(`http://127.0.0.1:${port}/`)
        .then(() => true)
        .catch(() => false),
    "nginx",
  );
  return { url: `http://127.0.0.1:${port}/mcp`, port, proc, stop: stopper(proc) };
}
