// Shared by the signed-log unit tests: events, keys, a signing sink on a temporary file, and the chain
// rebuilt as someone who can write the file would rebuild it.
import { generateKeyPairSync } from "node:crypto";
import {
  checkpointKeyId,
  type CheckpointPayload,
  type CheckpointSigner,
} from "../../../src/audit/checkpoint.js";
import { CheckpointingSink } from "../../../src/audit/checkpointSink.js";
import { AUDIT_GENESIS, lineHash } from "../../../src/audit/chain.js";
import type { ToolCallEvent } from "../../../src/audit/events.js";
import { JsonlFileSink } from "../../../src/audit/jsonlFileSink.js";

export const callEvent = (tool: string, decision: ToolCallEvent["decision"] = "allow"): ToolCallEvent => ({
  time: "2026-01-01T00:00:00.000Z",
  session: "s",
  policy_digest: null,
  request_id: 1,
  event: "tools/call",
  tool,
  decision,
  code: null,
  rule: null,
  reason: "r",
  warnings: [],
  args_sha256: null,
});

export function signer(): CheckpointSigner & {
  keys: Map<string, ReturnType<typeof generateKeyPairSync>["publicKey"]>;
} {
  const pair = generateKeyPairSync("ed25519");
  const keyId = checkpointKeyId(pair.publicKey);
  return { keyId, privateKey: pair.privateKey, keys: new Map([[keyId, pair.publicKey]]) };
}

export function signedSink(path: string, key: CheckpointSigner, every = 1000): CheckpointingSink {
  return new CheckpointingSink(new JsonlFileSink(path, { checkpoints: true }), {
    signer: key,
    every,
    intervalMs: 3_600_000,
    session: "s",
    publisher: null,
    log: () => {},
  });
}

/** The lines with seq and prev set anew, as someone who can write the file would rebuild the chain. */
export function rechain(lines: readonly string[]): string {
  let prev = AUDIT_GENESIS;
  return lines
    .map((line, i) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      event.seq = i + 1;
      event.prev = prev;
      const text = JSON.stringify(event);
      prev = lineHash(text);
      return text + "\n";
    })
    .join("");
}

/** A line as the tests read it: its event, trigger and checkpoint (the fields a checkpoint has). */
export interface ParsedLine {
  event: string;
  trigger?: string;
  checkpoint: CheckpointPayload;
  signature: string;
}

export const parseLine = (line: string): ParsedLine => JSON.parse(line) as ParsedLine;
