// `toolgate approve` mints what approves a call by itself: signed with the HMAC secret of
// TOOLGATE_APPROVAL_SECRET, or an Ed25519 key from `toolgate approve keygen`. Through wrap and the real
// server-filesystem: each minted artifact lets exactly one write run.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, connect, FILESYSTEM_SERVER, NODE, tempDir, wrapCommand, writePolicy } from "./helpers.js";

const SECRET = "e2e-approval-secret-0123456789abcdef";
const dir = tempDir("tg-approve-");
const workspace = tempDir("tg-approve-ws-");
const policy = writePolicy(
  dir,
  'version: "2.0"\ntools:\n  approval_required: ["write_file"]\nenforcement: { unconstrained_tools: allow }\n',
);

function toolgate(args: string[], env: Record<string, string> = {}) {
  return spawnSync(NODE, [CLI, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
}

async function writeWith(wrapFlags: string[], env: Record<string, string>, approval: unknown, path: string) {
  const c = await connect({
    ...wrapCommand(["--policy", policy, ...wrapFlags], [NODE, FILESYSTEM_SERVER, workspace]),
    env,
  });
  try {
    return await c.client.callTool({
      name: "write_file",
      arguments: { path, content: "ok\n" },
      _meta: { approval },
    });
  } finally {
    await c.close();
  }
}

describe("toolgate approve", () => {
  it("mints an HMAC-signed artifact that approves one write through wrap", async () => {
    const target = join(workspace, "hmac.txt");
    const minted = toolgate(["approve", "--tool", "write_file", "--resource", target, "--approver", "ops"], {
      TOOLGATE_APPROVAL_SECRET: SECRET,
    });
    expect(minted.status).toBe(0);
    const artifact = JSON.parse(minted.stdout) as Record<string, unknown>;
    expect(artifact).toMatchObject({
      bound_tool: "write_file",
      bound_resource: target,
      approver: "ops",
      signature: { alg: "HS256" },
    });
    const result = await writeWith([], { TOOLGATE_APPROVAL_SECRET: SECRET }, artifact, target);
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("ok\n");
    // Without the secret, toolgate trusts no key: the same artifact approves nothing.
    const other = join(workspace, "hmac-no-key.txt");
    const again = await writeWith([], {}, { ...artifact, bound_resource: other }, other);
    expect(again.isError).toBe(true);
    expect(existsSync(other)).toBe(false);
  });

  it("keygen writes an Ed25519 pair; an artifact signed with the private key approves with --approval-key", async () => {
    const priv = join(dir, "approver.pem");
    const pub = join(dir, "approver.pub.pem");
    expect(toolgate(["approve", "keygen", "--private", priv, "--public", pub]).status).toBe(0);
    const target = join(workspace, "ed25519.txt");
    const minted = toolgate([
      "approve",
      "--tool",
      "write_file",
      "--resource",
      target,
      "--private-key",
      priv,
      "--ttl",
      "60",
    ]);
    expect(minted.status).toBe(0);
    const artifact = JSON.parse(minted.stdout) as Record<string, unknown>;
    expect(artifact.signature).toMatchObject({ alg: "EdDSA" });
    const result = await writeWith(["--approval-key", pub], {}, artifact, target);
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("ok\n");
  });

  it("refuses to mint without a key, naming both ways to give one", () => {
    const r = toolgate(["approve", "--tool", "write_file"], { TOOLGATE_APPROVAL_SECRET: "" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("E_APPROVAL_KEY");
    expect(r.stderr).toContain("--private-key");
    expect(r.stderr).toContain("TOOLGATE_APPROVAL_SECRET");
  });

  it("wrap refuses to start with a key file that is not an Ed25519 public key", () => {
    const r = toolgate([
      "wrap",
      "--policy",
      policy,
      "--approval-key",
      policy,
      "--",
      NODE,
      FILESYSTEM_SERVER,
      workspace,
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("E_APPROVAL_KEY");
  });
});
