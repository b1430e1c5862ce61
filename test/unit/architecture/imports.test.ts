// The house rules of src/: imports flow one way (a folder imports only folders below it), no file imports
// itself back through others, and no file grows past what one reader can hold. Read from the source text,
// so a new import that breaks a rule fails here before it spreads.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(new URL(import.meta.url).pathname), "../../../src");

/**
 * The floors of the house, lowest first. A file may import files of its own folder and of any folder on a
 * lower floor; folders on one floor do not import each other.
 */
const FLOORS: readonly (readonly string[])[] = [
  ["engine/text"],
  ["engine/model"],
  ["engine/errors.ts"],
  ["engine/json", "engine/patterns"],
  ["engine/rpc", "engine/schema", "engine/pins"],
  ["engine/controls", "engine/protocol"],
  ["engine/policy"],
  ["ops"],
  ["config", "audit", "state", "auth"],
  ["session", "transports"],
  ["upstream"],
  ["wrap", "serve"],
  // Replay re-decides recorded traffic (serve's meta tool names, the session's obligations): the CLI's
  // `toolgate replay` and the dashboard's what-if view run the same code.
  ["replay"],
  ["dashboard"],
  ["index.ts"],
  ["cli"],
];

function roomOf(file: string): string {
  for (const floor of FLOORS) {
    for (const room of floor) if (file === room || file.startsWith(`${room}/`)) return room;
  }
  throw new Error(`src/${file} belongs to no floor of the house rules (test/unit/architecture)`);
}

function floorOf(room: string): number {
  return FLOORS.findIndex((floor) => floor.includes(room));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [relative(SRC, path)] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2]!;
    out.push(relative(SRC, resolve(SRC, dirname(file), spec.replace(/\.js$/, ".ts"))));
  }
  return out;
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

describe("src/ house rules", () => {
  it("every file belongs to a floor", () => {
    for (const file of files) expect(() => roomOf(file)).not.toThrow();
  });

  it("imports flow down: a folder imports only its own files and folders on lower floors", () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const from = roomOf(file);
      for (const target of imports) {
        const to = roomOf(target);
        if (to !== from && floorOf(to) >= floorOf(from)) wrong.push(`src/${file} imports src/${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("no import cycles between files", () => {
    // Tarjan's strongly connected components: any component of more than one file is a cycle.
    let index = 0;
    const order = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    const visit = (file: string): void => {
      order.set(file, index);
      low.set(file, index);
      index++;
      stack.push(file);
      onStack.add(file);
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue;
        if (!order.has(next)) {
          visit(next);
          low.set(file, Math.min(low.get(file)!, low.get(next)!));
        } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
      }
      if (low.get(file) === order.get(file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== file);
        if (component.length > 1) cycles.push(component.sort());
      }
    };
    for (const file of files) if (!order.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it("every import names a file that exists", () => {
    const missing = [...graph].flatMap(([file, imports]) =>
      imports.filter((t) => !graph.has(t)).map((t) => `src/${file} → src/${t}`),
    );
    expect(missing).toEqual([]);
  });

  it("no file is longer than one reader holds: 400 lines, and the files still above it do not grow", () => {
    const over: string[] = [];
    for (const file of files) {
      const lines = readFileSync(join(SRC, file), "utf8").split("\n").length - 1;
      const ceiling = OVERSIZE[file] ?? MAX_LINES;
      if (lines > ceiling) over.push(`src/${file}: ${lines} lines (at most ${ceiling})`);
    }
    expect(over).toEqual([]);
    // The ledger only shrinks: a file that came down under 400 leaves it.
    const stale = Object.keys(OVERSIZE).filter(
      (file) =>
        !files.includes(file) || readFileSync(join(SRC, file), "utf8").split("\n").length - 1 <= MAX_LINES,
    );
    expect(stale).toEqual([]);
  });

  it("transports only move messages: they import no session code", () => {
    const wrong = [...graph].flatMap(([file, imports]) =>
      roomOf(file) === "transports"
        ? imports.filter((t) => roomOf(t) === "session").map((t) => `src/${file} imports src/${t}`)
        : [],
    );
    expect(wrong).toEqual([]);
  });

  it("transports only move messages: protocol code stays in the files that still read it, and shrinks", () => {
    // The era checks of serve over HTTP still live in transports (the CLI builds the listener); a new
    // transports file that reads the protocol layer fails here. Each entry leaves once its checks come in
    // from src/serve as a hook.
    const protocolReaders = [...graph]
      .filter(
        ([file, imports]) =>
          roomOf(file) === "transports" && imports.some((t) => roomOf(t) === "engine/protocol"),
      )
      .map(([file]) => file)
      .sort();
    expect(protocolReaders).toEqual(["transports/httpEndpoint.ts", "transports/modernExchanges.ts"]);
  });

  it("every surface runs calls through the one call flow (session/runCall.ts)", () => {
    for (const surface of ["wrap/policyProxy.ts", "serve/toolRouter.ts"]) {
      expect(graph.get(surface), surface).toContain("session/runCall.ts");
    }
    // Nobody else decides a call step by step.
    const deciders = [...graph]
      .filter(([file]) => readFileSync(join(SRC, file), "utf8").match(/session\.decideCall\(/) !== null)
      .map(([file]) => file);
    expect(deciders).toEqual(["session/runCall.ts"]);
  });
});

const MAX_LINES = 400;

/** Files above {@link MAX_LINES} today, each at its size now: debt to pay down, never to add to. */
const OVERSIZE: Record<string, number> = {
  "wrap/policyProxy.ts": 558,
};
