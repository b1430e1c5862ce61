// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests that scrape /metrics:
// every line must be a comment (# HELP / # TYPE with a known type), blank, or a sample
// `name{label="value",…} value` with a valid metric name, valid label names, escaped label values and a
// number; a sample's family must have been typed before it. Anything else throws, naming the line.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The one sample of `name` with exactly these labels (among others), or undefined. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The sum over every sample of `name` whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES = ["_bucket", "_sum", "_count", "_total", "_created"];

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] !== "") throw new Error("the exposition does not end with a newline");
  lines.forEach((line, index) => {
    const at = `line ${index + 1} ('${line}')`;
    if (line === "") return;
    if (line.startsWith("#")) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (m === null) {
        if (line.startsWith("# HELP") || line.startsWith("# TYPE")) throw new Error(`malformed ${at}`);
        return;
      }
      if (!NAME.test(m[2]!)) throw new Error(`bad metric name at ${at}`);
      if (m[1] === "TYPE") {
        if (!TYPES.has(m[3]!)) throw new Error(`unknown type at ${at}`);
        if (types.has(m[2]!)) throw new Error(`second TYPE of ${m[2]} at ${at}`);
        types.set(m[2]!, m[3]!);
      }
      return;
    }
    samples.push(sampleOf(line, at, types));
  });
  const matches = (s: Sample, labels: Record<string, string>): boolean =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  return {
    types,
    samples,
    value(name, labels = {}) {
      const found = samples.filter((s) => s.name === name && matches(s, labels));
      if (found.length > 1)
        throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
    sum(name, labels = {}) {
      return samples.filter((s) => s.name === name && matches(s, labels)).reduce((t, s) => t + s.value, 0);
    },
  };
}

function sampleOf(line: string, at: string, types: Map<string, string>): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
  if (m === null) throw new Error(`malformed sample at ${at}`);
  const name = m[1]!;
  const family = types.has(name)
    ? name
    : SUFFIXES.map((s) => (name.endsWith(s) ? name.slice(0, -s.length) : "")).find((f) => types.has(f));
  if (family === undefined) throw new Error(`sample of an untyped family at ${at}`);
  const labels = m[2] === undefined ? {} : labelsOf(m[2].slice(1, -1), at);
  const raw = m[3]!;
  // As Prometheus reads values (Go's ParseFloat): NaN and Inf in any case (prom-client writes `Nan`).
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(raw);
  if (special === null && !/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(raw)) {
    throw new Error(`bad value at ${at}`);
  }
  const value =
    special === null
      ? Number(raw)
      : special[2]!.toLowerCase() === "nan"
        ? NaN
        : special[1] === "-"
          ? -Infinity
          : Infinity;
  return { name, labels, value };
}

function labelsOf(text: string, at: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== "") {
    const m = /^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"(,?)/.exec(rest);
    if (m === null) throw new Error(`malformed labels at ${at}`);
    if (!LABEL.test(m[1]!)) throw new Error(`bad label name '${m[1]}' at ${at}`);
    if (m[1]! in labels) throw new Error(`label ${m[1]} twice at ${at}`);
    labels[m[1]!] = m[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c));
    rest = rest.slice(m[0].length);
    if (m[3] === "" && rest !== "") throw new Error(`labels not separated at ${at}`);
  }
  return labels;
}
