// `node dist/bench/startup.js`: what toolgate's own start costs. (1) `toolgate --version` beside a bare
// `node -e 0`, and (2) `toolgate wrap` from spawn to the `initialize` answer beside the server spawned
// directly. Runs alternate pair by pair, so a machine that slows down mid-run slows both sides alike; the
// aims are stated as the ratio (1) and the difference (2) of same-run medians.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cli = join(root, "dist/cli.js");
const server = join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 20);

/** The aims of issue 23. */
const VERSION_RATIO_AIM = 1.3;
const WRAP_ADDED_MS_AIM = 60;

const ALLOW_ALL = `version: "2.0"
name: bench-allow-all
tools:
  allow: ["*"]
enforcement:
  unconstrained_tools: allow
`;

/** Spawn → exit of a command that prints and ends (`--version`, `node -e 0`), one run, in ns. */
function exitOnce(command: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  const result = spawnSync(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  const ns = Number(process.hrtime.bigint() - t0);
  if (result.status !== 0) throw new Error(`${command.join(" ")} exited ${String(result.status)}`);
  return ns;
}

/** Spawn → the `initialize` answer's first line, one process, in ns. */
function initializeOnce(command: readonly string[]): Promise<number> {
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const ms = (ns: number): string => (ns / 1e6).toFixed(1);

function row(name: string, samples: readonly number[]): string {
  return `| ${name} | ${ms(median(samples))} | ${ms(Math.min(...samples))} | ${ms(Math.max(...samples))} |`;
}

async function main(): Promise<void> {
  for (const path of [cli, server]) {
    if (!existsSync(path)) throw new Error(`missing ${path}: run \`npm ci && npm run build\``);
  }
  const node = process.execPath;
  const bare = [node, "-e", "0"];
  const version = [node, cli, "--version"];

  console.log(`\ntoolgate start-up — ${RUNS} runs each, alternating (node ${process.version})`);
  exitOnce(bare); // warm the file cache
  exitOnce(version);
  const bareNs: number[] = [];
  const versionNs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate which runs first, so neither always follows the other.
    if (i % 2 === 0) {
      bareNs.push(exitOnce(bare));
      versionNs.push(exitOnce(version));
    } else {
      versionNs.push(exitOnce(version));
      bareNs.push(exitOnce(bare));
    }
  }
  console.log("| variant | median ms | min ms | max ms |");
  console.log("|---|---:|---:|---:|");
  console.log(row("node -e 0", bareNs));
  console.log(row("toolgate --version", versionNs));
  const ratio = median(versionNs) / median(bareNs);
  console.log(
    `--version ÷ node -e 0 (medians): ${ratio.toFixed(2)}× (aim ≤ ${VERSION_RATIO_AIM}×: ${ratio <= VERSION_RATIO_AIM ? "met" : "not met"})`,
  );

  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-start-"));
  try {
    const policy = join(dir, "allow-all.yaml");
    writeFileSync(policy, ALLOW_ALL);
    const direct = [node, server];
    const wrapped = [node, cli, "wrap", "--policy", policy, "--", node, server];
    await initializeOnce(direct);
    await initializeOnce(wrapped);
    const directNs: number[] = [];
    const wrappedNs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        directNs.push(await initializeOnce(direct));
        wrappedNs.push(await initializeOnce(wrapped));
      } else {
        wrappedNs.push(await initializeOnce(wrapped));
        directNs.push(await initializeOnce(direct));
      }
    }
    console.log(`\ntoolgate wrap — spawn → initialize answer, ${RUNS} runs each, alternating`);
    console.log("| variant | median ms | min ms | max ms |");
    console.log("|---|---:|---:|---:|");
    console.log(row("server-everything, direct", directNs));
    console.log(row("toolgate wrap (allow-all policy)", wrappedNs));
    const added = median(wrappedNs) - median(directNs);
    console.log(
      `wrap's added start-up (medians): ${ms(added)} ms (aim ≤ ${WRAP_ADDED_MS_AIM} ms: ${added / 1e6 <= WRAP_ADDED_MS_AIM ? "met" : "not met"})`,
    );
    // A wrapper written in Node cannot spawn its server before its own Node has started: that floor.
    console.log(
      `of which a bare Node start (node -e 0, above): ${ms(median(bareNs))} ms; wrap's own work: ${ms(added - median(bareNs))} ms`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
