// The configuration deploy/ ships, read by the real toolgate (dist/, so `npm run build` first): the
// ConfigMap's files and the Secret's tokens file as serve would find them in the pod, the placeholders
// refused, real values served, and the Deployment's own arguments started and probed as kubelet would.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../support/redisServer.js";
import { find, oneFlag, render, ROOT, type K8sObject } from "./render.js";

const CLI = join(ROOT, "dist/cli.js");
const TOKEN = "deploy-test-token-0123456789abcdef";
const STATE_SECRET = "0123456789abcdef".repeat(4);

const objects = render("base").objects;
const deployment = find(objects, "Deployment", "toolgate");
const container: K8sObject = deployment.spec.template.spec.containers[0];
const configMap = objects.find((o) => o.kind === "ConfigMap")!;
const secret = find(objects, "Secret", "toolgate-secrets");

/** The pod's files in a temporary directory: the ConfigMap as the config dir, the tokens file beside. */
function podFiles(tokens: string): { dir: string; configDir: string; tokensFile: string } {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const dir = mkdtempSync(join(tmpdir(), "tg-deploy-"));
  const configDir = join(dir, "config");
  mkdirSync(configDir);
  for (const [name, text] of Object.entries<string>(configMap.data))
    writeFileSync(join(configDir, name), text);
  mkdirSync(join(dir, "secrets"));
  const tokensFile = join(dir, "secrets/tokens.yaml");
  writeFileSync(tokensFile, tokens);
  return { dir, configDir, tokensFile };
}

const realTokens = (): string =>
  (secret.stringData["tokens.yaml"] as string).replace(
    /REPLACE_WITH_\w+/,
    createHash("sha256").update(TOKEN).digest("hex"),
  );

interface Served {
  url: string;
  stop(): Promise<number | null>;
  stderr(): string;
}

/** serve with these arguments, until it prints its URL (or exits: the error has its stderr). */
function startServe(args: string[], env: Record<string, string>): Promise<Served> {
  const proc = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: "pipe" });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`serve did not start within 30 s:\n${stderr}`));
    }, 30_000);
    proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      // The Deployment asks for --log-format json: the URL then ends where the JSON string does.
      const m = /serving MCP \(\w+ mode\) on (http:\/\/[^\s"]+)/.exec(stderr);
      if (m === null) return;
      clearTimeout(timer);
      resolve({
        url: m[1]!,
        stderr: () => stderr,
        stop: async () => {
          proc.kill("SIGTERM");
          const kill = setTimeout(() => proc.kill("SIGKILL"), 45_000);
          const code = await exited;
          clearTimeout(kill);
          return code;
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${stderr}`));
    });
  });
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", headers }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function post(
  url: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "deploy-test", version: "1" },
  },
};

describe("the configuration in deploy/base, read by toolgate serve", () => {
  it("refuses the Secret's placeholders as written: the tokens file, then the state secret", () => {
    const files = podFiles(secret.stringData["tokens.yaml"]);
    const base = ["serve", "--config-dir", files.configDir, "--tokens", files.tokensFile, "--http", "0"];
    const tokens = spawnSync(process.execPath, [CLI, ...base], { encoding: "utf8", timeout: 30_000 });
    expect(tokens.status).toBe(2);
    expect(tokens.stderr).toMatch(/tokens\.yaml:\d+:\d+: error/);
    expect(tokens.stderr).toContain("token_sha256");

    const real = podFiles(realTokens());
    const args = ["serve", "--config-dir", real.configDir, "--tokens", real.tokensFile, "--http", "0"];
    const state = spawnSync(process.execPath, [CLI, ...args], {
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, TOOLGATE_STATE_SECRET: secret.stringData["state-secret"] },
    });
    expect(state.status).not.toBe(0);
    expect(state.stderr).toContain("TOOLGATE_STATE_SECRET must be at least 32 bytes");
  });

  it("serves the ConfigMap's servers and policy with real values in the Secret", async () => {
    const files = podFiles(realTokens());
    const served = await startServe(
      [
        "serve",
        "--config-dir",
        files.configDir,
        "--tokens",
        files.tokensFile,
        "--http",
        "0",
        "--host",
        "127.0.0.1",
      ],
      { TOOLGATE_STATE_SECRET: STATE_SECRET },
    );
    try {
      expect((await post(served.url, "not-the-token-0123456789", INITIALIZE)).status).toBe(401);
      const answer = await post(served.url, TOKEN, INITIALIZE);
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('"serverInfo"');
    } finally {
      await served.stop();
    }
  });

  it("starts with the Deployment's own arguments and answers the probes as kubelet sends them", async () => {
    const help = spawnSync(process.execPath, [CLI, "serve", "--help"], { encoding: "utf8" }).stdout;
    const flags = (container.args as string[]).filter((a) => a.startsWith("--"));
    const unknown = flags.filter((f) => !new RegExp(`^\\s+${f}\\b`, "m").test(help));
    expect(unknown, "flags serve does not have").toEqual([]);

    const files = podFiles(realTokens());
    const [httpPort, metricsPort] = [await freePort(), await freePort()];
    const specHttp = oneFlag(container.args, "--http")!;
    const specMetrics = oneFlag(container.args, "--metrics-port")!;
    // As in the pod, but on 127.0.0.1 (tests listen on loopback only) with free ports and temporary paths.
    // $(POD_IP) gets an address serve does not listen on, so only --allowed-host can make it acceptable.
    const podIp = "10.0.0.7";
    const args = (container.args as string[]).map((a, i, all) => {
      const flag = all[i - 1];
      if (flag === "--host" || flag === "--metrics-host") return "127.0.0.1";
      if (flag === "--http" && a === specHttp) return String(httpPort);
      if (flag === "--metrics-port" && a === specMetrics) return String(metricsPort);
      if (flag === "--config-dir") return files.configDir;
      if (flag === "--tokens") return files.tokensFile;
      if (flag === "--audit-log") return join(files.dir, "audit.jsonl");
      return a.replaceAll("$(POD_IP)", podIp).replaceAll("$(POD_NAMESPACE)", "default");
    });
    const served = await startServe(args, { TOOLGATE_STATE_SECRET: STATE_SECRET });
    try {
      // kubelet sends Host: <pod IP>:<port>, no token.
      const host = { host: `${podIp}:${httpPort}` };
      expect(
        (await get(`http://127.0.0.1:${httpPort}${container.livenessProbe.httpGet.path}`, host)).status,
      ).toBe(200);
      expect(
        (await get(`http://127.0.0.1:${httpPort}${container.readinessProbe.httpGet.path}`, host)).status,
      ).toBe(200);
      const metrics = await get(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain("toolgate_");
      // Clients in the cluster name the Service; another name is refused.
      const viaService = await post(served.url, TOKEN, INITIALIZE, { host: `toolgate:${httpPort}` });
      expect(viaService.status).toBe(200);
      expect((await post(served.url, TOKEN, INITIALIZE, { host: `elsewhere:${httpPort}` })).status).toBe(403);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });
});
