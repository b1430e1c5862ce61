// Shared timing for in-process benchmarks: every operation is timed on its own with hrtime, the cost of
// the timer itself (measured in the same run) is subtracted, and percentiles come from the samples.

export interface Stats {
  perSecond: number;
  p50us: number;
  p99us: number;
  samples: number;
}

export interface Row {
  name: string;
  result: Stats;
  baselineName: string;
  baseline: Stats;
}

let timerCostNs: number | undefined;

function sample(fn: () => void, count: number): Float64Array {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    out[i] = Number(process.hrtime.bigint() - t0);
  }
  return out;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Times `fn` one call at a time after a warm-up; returns calls per second and p50/p99 in µs. */
export function measure(fn: () => void, count = 200_000): Stats {
  if (timerCostNs === undefined) {
    const empty = sample(() => {}, 200_000).sort();
    timerCostNs = percentile(empty, 0.5);
  }
  sample(fn, Math.min(50_000, count)); // warm-up: let the JIT settle
  const started = process.hrtime.bigint();
  const ns = sample(fn, count);
  const wall = Number(process.hrtime.bigint() - started);
  ns.sort();
  const cost = timerCostNs;
  return {
    perSecond: Math.round(count / ((wall - cost * count) / 1e9)),
    p50us: Math.max(0, percentile(ns, 0.5) - cost) / 1000,
    p99us: Math.max(0, percentile(ns, 0.99) - cost) / 1000,
    samples: count,
  };
}

const us = (v: number): string => (v < 10 ? v.toFixed(2) : v.toFixed(1));

export function printTable(title: string, rows: readonly Row[]): void {
  console.log(`\n${title}`);
  console.log(
    "| benchmark | decisions/s | p50 µs | p99 µs | baseline | baseline p50 µs | baseline p99 µs | p50 ratio |",
  );
  console.log("|---|---:|---:|---:|---|---:|---:|---:|");
  for (const r of rows) {
    const ratio = r.baseline.p50us > 0 ? (r.result.p50us / r.baseline.p50us).toFixed(2) : "n/a";
    console.log(
      `| ${r.name} | ${r.result.perSecond.toLocaleString("en-US")} | ${us(r.result.p50us)} | ${us(r.result.p99us)} | ` +
        `${r.baselineName} | ${us(r.baseline.p50us)} | ${us(r.baseline.p99us)} | ${ratio}× |`,
    );
  }
}
