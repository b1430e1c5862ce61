// The Dockerfile, built on this machine (scripts/build-image-offline.sh: a node:20-slim stand-in made with
// debootstrap, since no image can be pulled here) and checked: its configuration (user, entry point,
// command, health check), its files (only what runs), and toolgate run from its own files as its user.
// Slow (debootstrap ≈ 5 min once, the build ≈ 3 min): `npm run test:image`, not part of `npm test`.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  mkdtempSync,
  readdirSync,
  statSync,
  lstatSync,
  readlinkSync,
  writeFileSync,
  mkdirSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { freePort } from "../support/redisServer.js";
import { find, oneFlag, render, ROOT, type K8sObject } from "../deploy/render.js";

const IMAGE = "localhost/toolgate:test";
const TOKEN = "image-test-token-0123456789abcdef";

function run(
  cmd: string,
  args: string[],
  timeout = 120_000,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? String(r.error ?? "") };
}

function must(cmd: string, args: string[], timeout?: number): string {
  const r = run(cmd, args, timeout);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return r.stdout.trim();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let config: Record<string, any>;
/** HEALTHCHECK as podman reports it (beside Config, not in it). */
let healthcheck: { Test: string[] };
let mountPoint = "";
let container = "";

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error("the image test builds with podman as root; run it as root");
  for (const tool of ["podman", "buildah", "debootstrap"]) {
    if (run("sh", ["-c", `command -v ${tool}`]).status !== 0) {
      throw new Error(`${tool} is missing: apt-get install podman buildah debootstrap`);
    }
  }
  must(join(ROOT, "scripts/build-image-offline.sh"), [IMAGE], 20 * 60_000);
  const inspected = JSON.parse(must("podman", ["image", "inspect", IMAGE]))[0];
  config = inspected.Config;
  healthcheck = inspected.Healthcheck;
  mountPoint = must("podman", ["image", "mount", IMAGE]);
  container = must("buildah", ["from", "--pull-never", IMAGE]);
}, 25 * 60_000);

afterAll(() => {
  if (mountPoint !== "") run("podman", ["image", "unmount", IMAGE]);
  if (container !== "") run("buildah", ["rm", container]);
});

const deployment = find(render("base").objects, "Deployment", "toolgate");
const podContainer: K8sObject = deployment.spec.template.spec.containers[0];

describe("the image built from the Dockerfile", () => {
  it("runs with podman where the machine lets it, and says why not where it does not", (ctx) => {
    const r = run("podman", ["run", "--rm", IMAGE, "--version"], 60_000);
    if (r.status !== 0 && /setrlimit/.test(r.stderr)) {
      // This machine's sandbox forbids raising rlimits, which crun does for every container; the image
      // is not at fault. Its files are run below with buildah's chroot isolation instead.
      const reason = r.stderr
        .split("\n")
        .find((l) => /setrlimit/.test(l))!
        .trim();
      ctx.skip(`podman run cannot start any container here: ${reason}`);
    }
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("0.1.0");
  });

  it("runs toolgate as user 1000, with serve over HTTP on the paths deploy/ mounts as its command", () => {
    expect(config.User).toBe("1000:1000");
    expect(config.Entrypoint).toEqual(["node", "/opt/toolgate/bin/toolgate.js"]);
    const cmd: string[] = config.Cmd;
    expect(cmd[0]).toBe("serve");
    expect(oneFlag(cmd, "--host")).toBe("0.0.0.0");
    // The same paths as the Deployment's, so the image's default and the manifests mount alike.
    for (const flag of ["--config-dir", "--tokens", "--http", "--metrics-port"]) {
      expect(oneFlag(cmd, flag), flag).toBe(oneFlag(podContainer.args, flag));
    }
    expect(Object.keys(config.ExposedPorts).sort()).toEqual(
      [`${oneFlag(cmd, "--http")}/tcp`, `${oneFlag(cmd, "--metrics-port")}/tcp`].sort(),
    );
    const env = Object.fromEntries((config.Env as string[]).map((e) => e.split(/=(.*)/s).slice(0, 2)));
    expect(env.TOOLGATE_CONFIG_DIR).toBe(oneFlag(cmd, "--config-dir"));
    // HEALTHCHECK asks /healthz on serve's port (kept by `--format docker`; OCI images have no field for it).
    const test: string[] = healthcheck.Test;
    expect(test[0]).toBe("CMD");
    expect(test.join(" ")).toContain(`http://127.0.0.1:${oneFlag(cmd, "--http")}/healthz`);
    // The health check's Host (127.0.0.1:PORT) is one serve accepts when bound to 0.0.0.0.
    expect(cmd.filter((_, i) => cmd[i - 1] === "--allowed-host")).toContain("127.0.0.1");
  });

  it("holds only what runs: the launcher, the CLI bundle and its chunks, root-owned, no sources or node_modules", () => {
    const app = join(mountPoint, "opt/toolgate");
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (lstatSync(path).isDirectory()) walk(path);
        else files.push(relative(app, path));
      }
    };
    walk(app);
    const unexpected = files.filter(
      (f) =>
        !["package.json", "bin/toolgate.js", "dist/cli.js"].includes(f) &&
        !/^dist\/chunks\/[\w-]+\.js$/.test(f),
    );
    expect(unexpected).toEqual([]);
    expect(files.filter((f) => f.startsWith("dist/chunks/")).length).toBeGreaterThan(3);
    for (const f of files) {
      const st = statSync(join(app, f));
      expect(st.uid, `${f} is root's`).toBe(0);
      expect(st.mode & 0o022, `${f} is not writable by the user that runs it`).toBe(0);
    }
    for (const absent of ["src", "node_modules", "root/.npm", "home/node/.npm"]) {
      expect(() => statSync(join(mountPoint, absent)), `/${absent} is in the image`).toThrow();
    }
    expect(readdirSync(join(mountPoint, "opt"))).toEqual(["toolgate"]);
    expect(readlinkSync(join(mountPoint, "usr/local/bin/toolgate"))).toBe("/opt/toolgate/bin/toolgate.js");
  });

  it("runs toolgate from its own files as user 1000 (buildah's chroot isolation, no OCI runtime)", () => {
    const inImage = (...args: string[]): string =>
      must("buildah", ["run", "--isolation", "chroot", container, "--", ...args], 60_000);
    expect(inImage("id", "-u")).toBe("1000");
    expect(inImage("toolgate", "--version")).toBe("0.1.0");
    expect(inImage("node", "--version")).toMatch(/^v20\./);
  });

  it("serves deploy/base's configuration from the image and answers its own HEALTHCHECK", async (ctx) => {
    const objects = render("base").objects;
    const configMap = objects.find((o) => o.kind === "ConfigMap")!;
    const tokens = (find(objects, "Secret", "toolgate-secrets").stringData["tokens.yaml"] as string).replace(
      /REPLACE_WITH_\w+/,
      createHash("sha256").update(TOKEN).digest("hex"),
    );
    const staging = mkdtempSync(join(tmpdir(), "tg-image-"));
    mkdirSync(join(staging, "config"));
    for (const [name, text] of Object.entries<string>(configMap.data)) {
      writeFileSync(join(staging, "config", name), text);
    }
    writeFileSync(join(staging, "tokens.yaml"), tokens);
    must("buildah", [
      "copy",
      "--chown",
      "0:1000",
      container,
      join(staging, "config"),
      "/etc/toolgate/config",
    ]);
    must("buildah", [
      "copy",
      "--chown",
      "0:1000",
      container,
      join(staging, "tokens.yaml"),
      "/etc/toolgate/secrets/",
    ]);
    expect(parse(tokens)[0].name).toBe("example-client");

    const port = await freePort();
    // The image's command, on loopback and a free port (tests listen on 127.0.0.1 only); the flags of
    // issue 23's metrics work are left out until this build has them.
    const proc = spawn("buildah", [
      "run",
      "--isolation",
      "chroot",
      container,
      "--",
      "toolgate",
      "serve",
      "--http",
      String(port),
      "--host",
      "127.0.0.1",
      "--config-dir",
      "/etc/toolgate/config",
      "--tokens",
      "/etc/toolgate/secrets/tokens.yaml",
    ]);
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => proc.on("exit", resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start in 60 s:\n${stderr}`)), 60_000);
        proc.stderr.on("data", (c: Buffer) => {
          stderr += c.toString();
          if (/serving MCP/.test(stderr)) {
            clearTimeout(timer);
            resolve();
          }
        });
        void exited.then((code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
      });
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          `http://127.0.0.1:${port}/mcp`,
          {
            method: "POST",
            headers: {
              authorization: `Bearer ${TOKEN}`,
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "image", version: "1" },
            },
          }),
        );
      });
      expect(status).toBe(200);

      // The HEALTHCHECK's own command, inside the image, pointed at this port.
      const help = must("buildah", [
        "run",
        "--isolation",
        "chroot",
        container,
        "--",
        "toolgate",
        "serve",
        "--help",
      ]);
      if (!/--drain-timeout/.test(help)) {
        ctx.skip(
          "this build's serve has no /healthz yet (issue 23's health work): the HEALTHCHECK cannot pass",
        );
      }
      const check = run(
        "buildah",
        [
          "run",
          "--isolation",
          "chroot",
          "--env",
          `TOOLGATE_HEALTH_URL=http://127.0.0.1:${port}/healthz`,
          container,
          "--",
          ...healthcheck.Test.slice(1),
        ],
        30_000,
      );
      expect(check.status, check.stderr).toBe(0);
    } finally {
      proc.kill("SIGTERM");
      const kill = setTimeout(() => proc.kill("SIGKILL"), 45_000);
      await exited;
      clearTimeout(kill);
    }
  });
});
