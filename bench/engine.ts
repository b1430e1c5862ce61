// Policy engine benchmark: (a) name-only decisions against a policy with 1,000 patterns, (b) calls with a
// schema. Each is printed beside a baseline measured in the same run: a plain in-order scan of the same
// patterns for (a), the bare compiled Ajv validator for (b).
import { Ajv2020 } from "ajv/dist/2020.js";
import { loadPolicyText } from "../src/config/policyLoader.js";
import { compilePolicyWildcard } from "../src/engine/patterns/index.js";
import { compilePolicy } from "../src/engine/policy/compile.js";
import { decideCall, decideName } from "../src/engine/policy/decide.js";
import { measure, printTable, type Row } from "./measure.js";

const PATTERNS = 1000;

function namePolicy(): { text: string; patterns: string[]; names: string[] } {
  const patterns: string[] = [];
  for (let i = 0; i < PATTERNS; i++) {
    const r = i % 20;
    if (r < 14) patterns.push(`tool_${i}_op`);
    else if (r < 17) patterns.push(`ns${i}.*`);
    else if (r < 19) patterns.push(`*_suffix${i}`);
    else patterns.push(`*mid${i}*`);
  }
  const deny = patterns.filter((_, i) => i % 2 === 0);
  const allow = patterns.filter((_, i) => i % 2 === 1);
  const text = [
    'version: "2.0"',
    "tools:",
    `  allow: [${allow.map((p) => JSON.stringify(p)).join(", ")}]`,
    `  deny: [${deny.map((p) => JSON.stringify(p)).join(", ")}]`,
    "enforcement:",
    "  unconstrained_tools: allow",
    "",
  ].join("\n");
  const names: string[] = [];
  for (let i = 0; i < 256; i++) {
    const k = (i * 37) % PATTERNS;
    const r = i % 5;
    if (r === 0) names.push(`tool_${k}_op`);
    else if (r === 1) names.push(`ns${k}.read_file`);
    else if (r === 2) names.push(`write_suffix${k}`);
    else if (r === 3) names.push(`a_mid${k}_b`);
    else names.push(`unknown_tool_${i}`);
  }
  return { text, patterns, names };
}

const schema = {
  type: "object",
  additionalProperties: false,
  properties: {
    path: { type: "string", pattern: "^/workspace/.*", minLength: 1, maxLength: 4096 },
    encoding: { type: "string", enum: ["utf-8", "base64"] },
    limit: { type: "integer", minimum: 1, maximum: 10000 },
  },
  required: ["path"],
};

function schemaPolicy(): string {
  return [
    'version: "2.0"',
    "tools:",
    '  allow: ["read_file"]',
    "schemas:",
    `  read_file: ${JSON.stringify(schema)}`,
    "",
  ].join("\n");
}

function load(text: string) {
  const { policy, diagnostics } = loadPolicyText("bench.yaml", text);
  if (policy === null) throw new Error(diagnostics.map((d) => d.message).join("; "));
  return compilePolicy(policy);
}

export function runEngineBench(): Row[] {
  const rows: Row[] = [];
  const { text, patterns, names } = namePolicy();
  const compiled = load(text);
  const wildcards = patterns.map(compilePolicyWildcard);
  const deny = wildcards.filter((_, i) => i % 2 === 0);
  const allow = wildcards.filter((_, i) => i % 2 === 1);
  let sink = 0;
  let n = 0;
  const scan = measure(() => {
    const name = names[n++ & 255]!;
    // The obvious engine: first deny match, then first allow match, in file order.
    if (deny.some((w) => w.matches(name))) sink++;
    else if (allow.some((w) => w.matches(name))) sink--;
  });
  const indexed = measure(() => {
    if (decideName(compiled, names[n++ & 255]!).allowed) sink++;
  });
  rows.push({
    name: `(a) name decision, ${PATTERNS} patterns`,
    result: indexed,
    baselineName: "in-order scan",
    baseline: scan,
  });

  const withSchema = load(schemaPolicy());
  const ajv = new Ajv2020({ allErrors: true });
  const bare = ajv.compile(schema);
  const argsList = [
    { path: "/workspace/a.txt" },
    { path: "/workspace/dir/b.md", encoding: "utf-8", limit: 20 },
    { path: "/etc/passwd" },
    { path: "/workspace/x", extra: true },
  ];
  const counters = { toolCalls: 0, requests: 0 };
  const call = measure(() => {
    if (
      decideCall(withSchema, "read_file", { kind: "value", value: argsList[n++ & 3] }, counters).decision ===
      "allow"
    )
      sink++;
  });
  const ajvOnly = measure(() => {
    if (bare(argsList[n++ & 3])) sink++;
  });
  rows.push({
    name: "(b) call decision with schema",
    result: call,
    baselineName: "bare Ajv validate",
    baseline: ajvOnly,
  });
  if (sink === 0.5) console.log(sink);
  return rows;
}

// Run directly (node dist/bench/engine.js) rather than bundled into run.js.
if (/engine\.[jt]s$/.test(process.argv[1] ?? "")) {
  printTable("policy engine", runEngineBench());
}
