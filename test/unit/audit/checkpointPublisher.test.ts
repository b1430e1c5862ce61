// --checkpoint-publish: each checkpoint on a command's stdin, in order; failures logged with their code and
// retried a bounded number of times; nothing the caller waits for.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointPublisher } from "../../../src/audit/checkpointPublisher.js";

const fast = { attempts: 3, firstDelayMs: 10, timeoutMs: 10_000, maxQueue: 2 };

describe("CheckpointPublisher", () => {
  it("gives each checkpoint line to the command, in order, without holding up the caller", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "tg-publish-")), "published.jsonl");
    const logged: string[] = [];
    const publisher = new CheckpointPublisher(`cat >> '${out}'`, (l) => logged.push(l), fast);
    publisher.publish('{"seq":3}', 3);
    publisher.publish('{"seq":7}', 7);
    await publisher.drain(20_000);
    expect(readFileSync(out, "utf8")).toBe('{"seq":3}\n{"seq":7}\n');
    expect(logged).toEqual([]);
  });

  it("a failing command is logged with E_CHECKPOINT_PUBLISH, retried, then given up", async () => {
    const logged: string[] = [];
    const publisher = new CheckpointPublisher(
      "cat > /dev/null; echo store unreachable >&2; exit 3",
      (l) => logged.push(l),
      fast,
    );
    publisher.publish('{"seq":3}', 3);
    await publisher.drain(20_000);
    expect(logged).toHaveLength(3);
    expect(logged[0]).toMatch(
      /^E_CHECKPOINT_PUBLISH: publishing the checkpoint at seq 3 .* failed \(exit 3: store unreachable\); attempt 1 of 3, next in 0.01 s$/,
    );
    expect(logged[2]).toMatch(/gave up after 3 attempts/);
  });

  it("the queue is bounded: the oldest waiting checkpoint is dropped, and said", async () => {
    const logged: string[] = [];
    const publisher = new CheckpointPublisher("cat > /dev/null", (l) => logged.push(l), fast);
    for (const seq of [1, 2, 3, 4]) publisher.publish(`{"seq":${seq}}`, seq);
    await publisher.drain(20_000);
    // 1 is being published at once; 2, 3, 4 wait in a queue of 2: 2 is dropped.
    expect(logged).toEqual([
      expect.stringMatching(/^E_CHECKPOINT_PUBLISH: the checkpoint at seq 2 was not published/),
    ]);
  });
});
