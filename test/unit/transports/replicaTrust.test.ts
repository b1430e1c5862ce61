// Replicas trust each other through TOOLGATE_STATE_SECRET, never through the state store: ownership records
// and hop proofs are HMACs with keys derived from the secret, one key per purpose.
import { describe, expect, it } from "vitest";
import { HOP_PROOF_WINDOW_MS, ReplicaTrust } from "../../../src/transports/replicaTrust.js";
import { signedDirectory, type OwnershipStore } from "../../../src/transports/replicaDirectory.js";

const SECRET = "replica-trust-secret-0123456789abcdef";
const trust = new ReplicaTrust(SECRET);
const OWNER = "http://10.0.0.5:8931";
const SESSION = "6f1c2a9e-3b0d-4c57-9a41-2e8f7d5b1c03";

describe("ownership records", () => {
  it("a record names its owner for the session it was made for", () => {
    const record = trust.ownershipRecord(SESSION, OWNER);
    expect(record.startsWith(`tgo1 ${OWNER} `)).toBe(true);
    expect(trust.readOwnership(SESSION, record)).toEqual({ owner: OWNER });
    expect(new ReplicaTrust(SECRET).readOwnership(SESSION, record)).toEqual({ owner: OWNER });
  });

  it.each([
    ["a bare URL, as anyone with write access to the store could write", `http://127.0.0.1:9`],
    [
      "another owner under a valid signature",
      trust.ownershipRecord(SESSION, OWNER).replace(OWNER, "http://evil:80"),
    ],
    ["another session's record", trust.ownershipRecord("another-session", OWNER)],
    [
      "a record made with another secret",
      new ReplicaTrust(`${SECRET}-other`).ownershipRecord(SESSION, OWNER),
    ],
    ["a hop proof passed off as a record", `tgo1 ${OWNER} ${trust.hopProof(SESSION, OWNER).split(".")[2]}`],
    ["extra fields", `${trust.ownershipRecord(SESSION, OWNER)} more`],
    ["an empty value", ""],
  ])("refuses %s", (_, record) => {
    const reading = trust.readOwnership(SESSION, record);
    expect("why" in reading).toBe(true);
  });

  it("needs a secret", () => {
    expect(() => new ReplicaTrust("")).toThrow(/TOOLGATE_STATE_SECRET/);
  });
});

describe("hop proofs", () => {
  const now = 1_750_000_000_000;
  const proof = trust.hopProof(SESSION, OWNER, now);

  it("the owner accepts a proof made for it and this session, lately", () => {
    expect(trust.checkHop(SESSION, OWNER, proof, now)).toBe(true);
    expect(trust.checkHop(SESSION, OWNER, proof, now + HOP_PROOF_WINDOW_MS)).toBe(true);
    expect(trust.checkHop(SESSION, OWNER, proof, now - 5_000)).toBe(true);
  });

  it.each([
    ["a client's own hop header", () => trust.checkHop(SESSION, OWNER, "1", now)],
    ["a proof for another session", () => trust.checkHop("another-session", OWNER, proof, now)],
    ["a proof for another replica", () => trust.checkHop(SESSION, "http://10.0.0.6:8931", proof, now)],
    ["an old proof", () => trust.checkHop(SESSION, OWNER, proof, now + HOP_PROOF_WINDOW_MS + 1)],
    [
      "a proof with its time changed",
      () => trust.checkHop(SESSION, OWNER, proof.replace(String(now), String(now + 1)), now),
    ],
    [
      "a proof made with another secret",
      () =>
        trust.checkHop(
          SESSION,
          OWNER,
          new ReplicaTrust(`${SECRET}-other`).hopProof(SESSION, OWNER, now),
          now,
        ),
    ],
    [
      "an ownership record's MAC passed off as a proof",
      () => {
        const mac = trust.ownershipRecord(SESSION, OWNER).split(" ")[2]!;
        return trust.checkHop(SESSION, OWNER, `tgh1.${now}.${mac}`, now);
      },
    ],
  ])("refuses %s", (_, check) => {
    expect(check()).toBe(false);
  });
});

describe("the signed directory", () => {
  function store(): OwnershipStore & { records: Map<string, string> } {
    const records = new Map<string, string>();
    return {
      records,
      own: async (id, record) => void records.set(id, record),
      ownerOf: async (id) => records.get(id) ?? null,
      disown: async (id) => void records.delete(id),
    };
  }

  it("writes signed records and follows them; a forged one is not followed, and says so", async () => {
    const lines: string[] = [];
    const kept = store();
    const directory = signedDirectory(
      kept,
      () => OWNER,
      SECRET,
      (l) => lines.push(l),
    );
    await directory.own(SESSION, OWNER, 1000);
    expect(kept.records.get(SESSION)).toMatch(/^tgo1 http:\/\/10\.0\.0\.5:8931 [\w-]{43}$/);
    expect(await directory.ownerOf(SESSION)).toBe(OWNER);
    kept.records.set("forged", "http://127.0.0.1:9");
    expect(await directory.ownerOf("forged")).toBeNull();
    expect(lines).toEqual([expect.stringMatching(/^session forged: its ownership record .* not followed/)]);
    expect(await directory.ownerOf("absent")).toBeNull();
    expect(lines).toHaveLength(1);
  });

  it("accepts its peers' hop proofs for itself, and says when a hop header is not one", () => {
    const lines: string[] = [];
    const owner = signedDirectory(
      store(),
      () => OWNER,
      SECRET,
      (l) => lines.push(l),
    );
    const peer = signedDirectory(
      store(),
      () => "http://10.0.0.6:8931",
      SECRET,
      () => undefined,
    );
    expect(owner.checkHop(SESSION, peer.proveHop(SESSION, OWNER))).toBe(true);
    expect(lines).toEqual([]);
    expect(owner.checkHop(SESSION, "1")).toBe(false);
    expect(peer.checkHop(SESSION, peer.proveHop(SESSION, OWNER))).toBe(false);
    expect(lines).toEqual([expect.stringContaining("served as the client's own")]);
  });
});
