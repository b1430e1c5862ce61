import type { Readable, Writable } from "node:stream";

/**
 * Backpressure between the two sides of a proxy: `source` stops being read while any of `sinks` has more
 * unwritten than its high-water mark, and is read again once they have all drained. Without it a peer that
 * writes faster than the other side reads (a server flooding notifications at a client that is busy) grows
 * the proxy's memory without bound; with it the excess waits in the peer's own pipe, where the OS bounds it.
 * Call the returned check after every write to one of `sinks`. A destroyed sink never drains and counts as
 * empty: nothing written to it is kept anyway.
 */
export function flowControl(source: Readable, sinks: readonly Writable[]): () => void {
  let paused = false;
  const awaiting = new Set<Writable>();
  const check = (): void => {
    const full = sinks.filter((sink) => sink.writableNeedDrain && !sink.destroyed);
    if (full.length === 0) {
      if (paused) {
        paused = false;
        source.resume();
      }
      return;
    }
    if (!paused) {
      paused = true;
      source.pause();
    }
    for (const sink of full) {
      if (awaiting.has(sink)) continue;
      awaiting.add(sink);
      const drained = (): void => {
        sink.off("drain", drained);
        sink.off("close", drained);
        awaiting.delete(sink);
        check();
      };
      sink.on("drain", drained);
      sink.on("close", drained);
    }
  };
  return check;
}
