// The signing flags of wrap and serve: durations, and what each flag needs before anything is opened.
import { mkdtempSync, writeFileSync } from "node:fs";
import { generateKeyPairSync } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { duration, openAuditLog } from "../../../src/cli/auditSigningOptions.js";

describe("--checkpoint-interval", () => {
  it("takes s, m, h, ms or bare seconds, at least one second", () => {
    expect([duration("60s"), duration("5m"), duration("1h"), duration("1500ms"), duration("90")]).toEqual([
      60_000, 300_000, 3_600_000, 1500, 90_000,
    ]);
    for (const bad of ["0s", "500ms", "1d", "-5s", "s", ""])
      expect(() => duration(bad), bad).toThrow(/at least 1 s/);
  });
});

describe("openAuditLog", () => {
  const dir = mkdtempSync(join(tmpdir(), "tg-signing-flags-"));
  const log = join(dir, "audit.jsonl");
  const none = () => {};

  it("refuses signing flags without what they need (E_USAGE) and a key of the wrong kind (E_AUDIT_KEY)", () => {
    expect(() => openAuditLog(log, { checkpointEvery: 5 }, "s", none)).toThrow(
      expect.objectContaining({ code: "E_USAGE", message: expect.stringContaining("--checkpoint-every") }),
    );
    expect(() => openAuditLog(undefined, { auditSigningKey: "k.pem" }, "s", none)).toThrow(
      expect.objectContaining({ code: "E_USAGE", message: expect.stringContaining("--audit-log") }),
    );
    const rsa = join(dir, "rsa.pem");
    writeFileSync(
      rsa,
      generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" }),
    );
    expect(() => openAuditLog(log, { auditSigningKey: rsa }, "s", none)).toThrow(
      expect.objectContaining({ code: "E_AUDIT_KEY", message: expect.stringContaining("not Ed25519") }),
    );
    expect(() => openAuditLog(log, { auditSigningKey: join(dir, "missing.pem") }, "s", none)).toThrow(
      expect.objectContaining({ code: "E_AUDIT_KEY" }),
    );
  });

  it("without a key: today's log, whose answers carry no receipts; with one: a signed log", () => {
    expect(openAuditLog(undefined, {}, "s", none)).toBeNull();
    const plain = openAuditLog(log, {}, "s", none)!;
    expect(plain.receipts).not.toBe(true);
    plain.close();
    const key = join(dir, "ed.pem");
    writeFileSync(key, generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }));
    const signed = openAuditLog(log, { auditSigningKey: key }, "s", none)!;
    expect(signed.receipts).toBe(true);
    signed.close();
  });
});
