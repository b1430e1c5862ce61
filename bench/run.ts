// `npm run bench`: every benchmark, one after another so they do not share the two cores.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runEngineBench } from "./engine.js";
import { printTable } from "./measure.js";
import { sharedMemoryBench } from "./sharedMemory.js";
import { printReceiptBench } from "./receipts.js";

const here = dirname(fileURLToPath(import.meta.url));

console.log(`toolgate benchmarks — node ${process.version}, ${new Date().toISOString()}`);
printTable("policy engine (in-process)", runEngineBench());
printReceiptBench();

// Benchmarks that drive real MCP servers run as their own processes.
for (const script of ["startup.js", "wrap.js", "serve.js", "replicas.js", "replay.js"]) {
  const path = join(here, script);
  if (!existsSync(path)) continue;
  const result = spawnSync(process.execPath, [path], { stdio: "inherit" });
  if (result.status !== 0) process.exitCode = 1;
}

// Memory of serve with shared and with per-session upstream servers: in this process, which only drives
// serve's sessions (serve and its servers are the processes measured).
await sharedMemoryBench().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
