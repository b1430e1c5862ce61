// wrap reloads its policy while it runs: an edit to the policy file changes the next decision (and the
// client hears that its tools changed), a broken edit is refused with its errors and the old policy stays,
// and SIGHUP reloads instead of stopping anything. Real server: server-everything.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  connect,
  EVERYTHING_SERVER,
  NODE,
  readAudit,
  tempDir,
  wrapCommand,
  type Connected,
} from "./helpers.js";

const ALLOW_ALL = 'version: "2.0"\ntools:\n  allow: ["*"]\nenforcement: { unconstrained_tools: allow }\n';
const DENY_ECHO =
  'version: "2.0"\ntools:\n  allow: ["*"]\n  deny: ["echo"]\nenforcement: { unconstrained_tools: allow }\n';
const BROKEN = 'version: "2.0"\ntools:\n  allow: ["*"\n';

const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const names = async (c: Connected): Promise<string[]> =>
  (await c.client.listTools()).tools.map((t) => t.name);

describe("wrap reloads its policy", () => {
  it("an edit decides the next call, a broken edit keeps the old policy and says why, SIGHUP reloads", async () => {
    const dir = tempDir("tg-reload-");
    const policy = join(dir, "policy.yaml");
    const audit = join(dir, "audit.jsonl");
    writeFileSync(policy, ALLOW_ALL);
    let changed = 0;
    const c = await connect(
      wrapCommand(["--policy", policy, "--audit-log", audit, "--label", "reload"], [NODE, EVERYTHING_SERVER]),
      {},
      (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++),
    );
    open.push(c);
    expect(await names(c)).toContain("echo");
    expect(await c.client.callTool({ name: "echo", arguments: { message: "one" } })).toMatchObject({
      content: [{ type: "text", text: "Echo: one" }],
    });

    // An edit: the next list hides echo and its call is refused, without a restart.
    const before = changed;
    writeFileSync(policy, DENY_ECHO);
    await expect
      .poll(() => c.stderr(), { timeout: 30_000 })
      .toMatch(/configuration reloaded \(\S*policy\.yaml\)/);
    await expect.poll(() => changed, { timeout: 10_000 }).toBeGreaterThan(before);
    expect(await names(c)).not.toContain("echo");
    const refused = (await c.client.callTool({ name: "echo", arguments: { message: "two" } })) as {
      isError?: boolean;
    };
    expect(refused.isError).toBe(true);
    const applied = readAudit(audit).filter((e) => e.event === "config_reload");
    expect(applied).toMatchObject([{ result: "applied", code: null, old_policy_digest: expect.any(String) }]);
    expect(applied[0]!.new_policy_digest).not.toBe(applied[0]!.old_policy_digest);
    expect(
      readAudit(audit)
        .filter((e) => e.tool === "echo")
        .map((e) => e.decision),
    ).toEqual(["allow", "hidden"]);

    // A broken edit: refused with the file, line and code; the policy that denies echo stays.
    writeFileSync(policy, BROKEN);
    await expect.poll(() => c.stderr(), { timeout: 30_000 }).toContain("E_RELOAD_REFUSED");
    expect(c.stderr()).toMatch(/policy\.yaml:\d+:\d+/);
    expect(await names(c)).not.toContain("echo");
    const reloads = readAudit(audit).filter((e) => e.event === "config_reload");
    expect(reloads[1]).toMatchObject({
      result: "refused",
      code: "E_RELOAD_REFUSED",
      policy_digest: applied[0]!.new_policy_digest,
      new_policy_digest: null,
    });
    expect((reloads[1]!.errors as string[]).join("\n")).toMatch(/policy\.yaml/);

    // SIGHUP reloads (and stops nothing): the allow-all policy written back without a watched change.
    writeFileSync(policy, ALLOW_ALL);
    await expect
      .poll(() => readAudit(audit).filter((e) => e.event === "config_reload").length, {
        timeout: 30_000,
      })
      .toBe(3);
    process.kill(c.pid()!, "SIGHUP");
    await expect
      .poll(() => (c.stderr().match(/configuration reloaded \(SIGHUP\)/g) ?? []).length, {
        timeout: 30_000,
      })
      .toBe(1);
    expect(await c.client.callTool({ name: "echo", arguments: { message: "three" } })).toMatchObject({
      content: [{ type: "text", text: "Echo: three" }],
    });
  }, 120_000);
});
