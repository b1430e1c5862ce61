// Backpressure through wrap, with a server written here: one that floods notifications at a client that is
// not reading, and one that stops reading while the client floods it. wrap must stop reading the fast side
// while the slow one is not draining, so its own memory stays bounded and the excess waits in the peer's
// pipe; once the slow side reads again, every message arrives, in order.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NODE, tempDir, wrapCommand } from "./helpers.js";

const MESSAGES = 4000;
const PAD = "x".repeat(8 * 1024); // 4,000 × 8 KiB: 32 MiB each way
const MiB = 1024 * 1024;

// FLOOD=out: on tools/call, MESSAGES notifications/message, each written when the pipe takes it (as an SDK
// server writes), its progress in PROGRESS; then the answer. FLOOD=in: after initialize, stop reading until
// RESUME exists; count the client's notifications into PROGRESS.
const SERVER = `
const fs = require("node:fs");
const { FLOOD, PROGRESS, RESUME, MESSAGES, PAD } = process.env;
let buffer = "";
let received = 0;
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
async function flood(id) {
  for (let i = 0; i < Number(MESSAGES); i++) {
    const ok = process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: { i, pad: PAD } } }) + "\\n");
    if (i % 50 === 0) fs.writeFileSync(PROGRESS, String(i));
    if (!ok) await new Promise((r) => process.stdout.once("drain", r));
  }
  fs.writeFileSync(PROGRESS, MESSAGES);
  send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "flooded" }] } });
}
function onLine(m) {
  if (m.method === "initialize") {
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: "flood", version: "1" } } });
    if (FLOOD === "in") {
      process.stdin.pause();
      const wait = setInterval(() => { if (fs.existsSync(RESUME)) { clearInterval(wait); process.stdin.resume(); } }, 50);
    }
  } else if (m.method === "notifications/roots/list_changed") {
    received++;
    if (received % 50 === 0 || received === Number(MESSAGES)) fs.writeFileSync(PROGRESS, String(received));
  } else if (m.method === "tools/list") {
    send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "flood", inputSchema: { type: "object" } }] } });
  } else if (m.method === "tools/call" && m.params.name === "flood") {
    void flood(m.id);
  } else if (m.id !== undefined) {
    send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "Tool " + m.params.name + " not found" }], isError: true } });
  }
}
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim() !== "") onLine(JSON.parse(line));
  }
});
`;

const dir = tempDir("tg-flood-");
const serverFile = join(dir, "flood.cjs");
writeFileSync(serverFile, SERVER);

let wrap: ChildProcessWithoutNullStreams | null = null;
afterEach(() => {
  if (wrap !== null && wrap.exitCode === null) wrap.kill("SIGKILL");
  wrap = null;
});

function start(flood: "out" | "in", tag: string) {
  const progress = join(dir, `${tag}.progress`);
  const resume = join(dir, `${tag}.resume`);
  writeFileSync(progress, "0");
  const spec = wrapCommand([], [NODE, serverFile]);
  const child = spawn(spec.command, spec.args, {
    env: {
      ...process.env,
      FLOOD: flood,
      PROGRESS: progress,
      RESUME: resume,
      MESSAGES: String(MESSAGES),
      PAD,
    },
  });
  wrap = child;
  const send = (m: object) => child.stdin.write(JSON.stringify(m) + "\n");
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    child,
    send,
    progress: () => Number(readFileSync(progress, "utf8") || "0"),
    resume: () => writeFileSync(resume, ""),
    rssBytes: () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) * 1024,
  };
}

/** Polls until `value` has not changed for 400 ms (at most `ms`), and returns it. */
async function settled(value: () => number, ms = 8000): Promise<number> {
  let last = value();
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 400));
    const now = value();
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** Reads `child`'s stdout from now on, frame by frame, until `done(frame)` (bounded by `ms`). */
// Frames as the test reads them: only the members it looks at.
type Frame = {
  id?: number;
  method?: string;
  params: { data: { i: number } };
  result: { content: [{ text: string }] };
};

function readFrames(child: ChildProcessWithoutNullStreams, done: (m: Frame) => boolean, ms = 30_000) {
  return new Promise<Frame[]>((resolve, reject) => {
    const frames: Frame[] = [];
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`only ${frames.length} frames in ${ms} ms`)), ms);
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const frame = JSON.parse(buffer.slice(0, nl)) as Frame;
        buffer = buffer.slice(nl + 1);
        frames.push(frame);
        if (done(frame)) {
          clearTimeout(timer);
          resolve(frames);
        }
      }
    });
  });
}

describe("wrap under a flood", () => {
  it("stops reading a server that floods a client not reading; nothing is lost once it reads", async () => {
    const w = start("out", "out");
    await readFrames(w.child, (m) => m.id === 1);
    w.child.stdout.removeAllListeners("data");
    w.child.stdout.pause();
    const before = w.rssBytes();
    w.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "flood", arguments: {} } });
    const stalled = await settled(w.progress);
    // The server got out only what the pipes and one bounded buffer hold, not the 32 MiB it has.
    expect(stalled).toBeLessThan(MESSAGES / 8);
    expect(w.rssBytes() - before).toBeLessThan(8 * MiB);
    const reading = readFrames(w.child, (m) => m.id === 2);
    w.child.stdout.resume();
    const frames = await reading;
    const indices = frames.filter((m) => m.method === "notifications/message").map((m) => m.params.data.i);
    expect(indices).toEqual(Array.from({ length: MESSAGES }, (_, i) => i));
    expect(frames.at(-1)!.result.content[0].text).toBe("flooded");
  });

  it("stops reading a client that floods a server not reading; every message arrives once it reads", async () => {
    const w = start("in", "in");
    await readFrames(w.child, (m) => m.id === 1);
    w.child.stdout.removeAllListeners("data");
    w.child.stdout.pause();
    const before = w.rssBytes();
    let accepted = 0;
    for (let i = 0; i < MESSAGES; i++) {
      if (
        w.send({
          jsonrpc: "2.0",
          method: "notifications/roots/list_changed",
          params: { _meta: { i, pad: PAD } },
        })
      ) {
        accepted++;
      }
    }
    // Give wrap time to read what it will; then what it holds is bounded and the rest waits in our pipe.
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.rssBytes() - before).toBeLessThan(8 * MiB);
    expect(w.child.stdin.writableLength).toBeGreaterThan(16 * MiB);
    expect(accepted).toBeLessThan(MESSAGES);
    w.resume();
    await expect.poll(w.progress, { timeout: 30_000, interval: 200 }).toBe(MESSAGES);
  });
});
