/** Where a value sits in its source file. */
export interface SourceRef {
  file: string;
  /** Field path, e.g. `tools.deny[1]`. */
  path: string;
  line: number;
  column: number;
}

/**
 * A parsed YAML or JSON document in which every value remembers its file, line, column and field path,
 * so loaders can report `file:line:col field: message` for anything they reject or doubt.
 */
export type SourceNode = SourceMap | SourceSeq | SourceScalar;

export interface SourceMap {
  kind: "map";
  entries: SourceEntry[];
  at: SourceRef;
}

export interface SourceSeq {
  kind: "seq";
  items: SourceNode[];
  at: SourceRef;
}

export interface SourceScalar {
  kind: "scalar";
  /** `null` for an empty value, `~` or `null`. */
  value: string | number | boolean | null;
  /** The source text of the scalar as written (e.g. `1e2`, `"x"`). */
  raw: string;
  /** True when the scalar was quoted; `"null"` is then the string, not null. */
  quoted: boolean;
  at: SourceRef;
}

export interface SourceEntry {
  key: string;
  keyAt: SourceRef;
  value: SourceNode;
}
