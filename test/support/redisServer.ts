// Debian's redis-server for the state contract suite, as the replica tests and the benchmark run it
// (bench/realServices.ts): in the foreground on 127.0.0.1, nothing persisted, its files and pid file in a
// directory of its own, stopped by the pid this test started. With `tls`, it listens only for TLS, with a
// certificate for 127.0.0.1 signed by a CA made here (openssl), whose file the client is given.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisArgs } from "../../bench/realServices.js";

export interface RedisServer {
  url: string;
  port: number;
  /** The CA file of a TLS server (TOOLGATE_STATE_CA), else undefined. */
  caFile: string | undefined;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  restart(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export async function startRedisServer(options: { tls?: boolean } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tg-contract-redis-"));
  const tls = options.tls === true ? makeCertificates(dir) : undefined;
  const args = redisArgs(port, dir);
  if (tls !== undefined) {
    // The plain port off, the TLS one on: a client that does not speak TLS is not answered.
    args[args.indexOf("--port") + 1] = "0";
    args.push(
      ...["--tls-port", String(port), "--tls-cert-file", tls.cert, "--tls-key-file", tls.key],
      ...["--tls-ca-cert-file", tls.ca, "--tls-auth-clients", "no"],
    );
  }
  const cliArgs = [...(tls === undefined ? [] : ["--tls", "--cacert", tls.ca]), "-p", String(port), "ping"];
  let proc = await run(args, cliArgs);
  return {
    url: `${tls === undefined ? "redis" : "rediss"}://127.0.0.1:${port}`,
    port,
    caFile: tls?.ca,
    stop: () => stop(proc),
    restart: async () => {
      proc = await run(args, cliArgs);
    },
  };
}

async function run(args: string[], cliArgs: string[]): Promise<ChildProcess> {
  const proc = spawn("redis-server", args, { stdio: "ignore" });
  const deadline = Date.now() + 10_000;
  while (spawnSync("redis-cli", cliArgs, { encoding: "utf8" }).stdout.trim() !== "PONG") {
    if (Date.now() > deadline || proc.exitCode !== null) {
      await stop(proc);
      throw new Error(`redis-server ${args.join(" ")} did not come up`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return proc;
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  proc.kill("SIGTERM");
  const kill = setTimeout(() => proc.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(kill);
}

/** A CA and a server certificate for IP 127.0.0.1 signed by it, valid for a day (P-256 keys: quick to make). */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const [ca, caKey, cert, key, csr, san] = [
    "ca.crt",
    "ca.key",
    "server.crt",
    "server.key",
    "server.csr",
    "san.cnf",
  ].map((name) => join(dir, name)) as [string, string, string, string, string, string];
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  writeFileSync(san, "subjectAltName=IP:127.0.0.1\n");
  const commands = [
    [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      caKey,
      "-out",
      ca,
      "-days",
      "1",
      "-subj",
      "/CN=toolgate contract test CA",
    ],
    ["req", ...ec, "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
    [
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      ca,
      "-CAkey",
      caKey,
      "-CAcreateserial",
      "-out",
      cert,
      "-days",
      "1",
      "-extfile",
      san,
    ],
  ];
  for (const command of commands) {
    const made = spawnSync("openssl", command, { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`openssl ${command.join(" ")}: ${made.stderr}`);
  }
  return { ca, cert, key };
}
