import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The policy corpus: every `<name>.yaml` in test/corpus/policies with its `<name>.expect.json`. */
export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../corpus/policies");

export interface CorpusExpectation {
  about: string;
  loads: boolean;
  /** Every load diagnostic, in order: [severity, code, "line:col", path]. */
  diagnostics: [string, string, string, string][];
  /** Every lint finding, in order: [code, "line:col", path]. Only for files that load. */
  lint?: [string, string, string][];
  /** Selected normalized fields (see normalizedView in corpus.test.ts). */
  normalized?: Record<string, unknown>;
  /** Field path → "line:col" of a SourceRef in the loaded policy. */
  positions?: Record<string, string>;
  /** Field path → exact message / hint of the first diagnostic at that path. */
  messages?: Record<string, string>;
  hints?: Record<string, string>;
}

export interface CorpusCase {
  name: string;
  /** The path used as `file` in diagnostics. */
  file: string;
  text: string;
  expect: CorpusExpectation;
}

export function corpusCases(): CorpusCase[] {
  const names = readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  return names.map((name) => {
    const expectPath = join(CORPUS_DIR, name.replace(/\.yaml$/, ".expect.json"));
    return {
      name,
      file: `policies/${name}`,
      text: readFileSync(join(CORPUS_DIR, name), "utf8"),
      expect: JSON.parse(readFileSync(expectPath, "utf8")) as CorpusExpectation,
    };
  });
}
