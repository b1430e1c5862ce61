/**
 * How toolgate reads a path argument before containing it in a `path_prefix` scope. Pure text work: the
 * disk is only consulted through the realpath hook in scope.ts.
 *
 * The rules, in order:
 * 1. A NUL byte anywhere (literal, or `%00` after decoding) is refused: C-level file APIs stop at it.
 * 2. A `file:` URI is unwrapped: `file:///p`, `file://localhost/p` and `file:/p` give `/p` (percent-decoded
 *    once, as URI syntax requires); a remote host, a query or a fragment is refused. Any other URI scheme
 *    is refused: it is not a file path. A single letter before `:` is a Windows drive, not a scheme.
 * 3. Percent-encoding: servers and the libraries in front of them disagree on whether they decode, so the
 *    path is checked as written AND after each round of decoding (`%252e` → `%2e` → `.`) until nothing
 *    changes; every form must be inside. More than MAX_DECODE_ROUNDS productive rounds is refused, and so
 *    are decoded bytes that are not UTF-8 (overlong `%c0%ae` is a `.` to some old decoders).
 * 4. Backslashes are separators (a server on Windows treats them so; on POSIX this only makes us stricter).
 * 5. The path must be absolute: `/…`, or a drive `C:\…` / `C:/…`. A relative path is refused, because the
 *    server resolves it against its own working directory, which toolgate cannot know. `C:foo` (drive
 *    relative) is relative. `~`, `~/…` and `~user/…` are expanded by servers to a home directory toolgate
 *    cannot see: they are refused unless the scope itself starts with the same `~` segment.
 * 6. Empty segments (repeated or trailing separators) and `.` segments are dropped; `..` removes the segment
 *    before it and stays at the root at the top (`/../etc` is `/etc`, as the kernel resolves it).
 *
 * Refused rather than normalized: look-alikes of `/`, `\` and `.` (fullwidth solidus, reverse solidus and
 * full stop, division slash, small reverse solidus), which Windows "best-fit" code-page conversion turns
 * into the real separators behind a server's back.
 *
 * Not normalized, on purpose: Unicode (NFC/NFD, look-alike letters such as Cyrillic `а` for Latin `a`) and
 * letter case. A look-alike is a different name, so `/wоrkspace` (Cyrillic o) is simply outside
 * `/workspace`; a case-insensitive filesystem can only make a differently-cased path mean the SAME
 * directory, so comparing case-sensitively errs towards refusing. Drive letters compare case-insensitively.
 */

export const MAX_DECODE_ROUNDS = 4;

/** A path reduced to its root and segments. `root` is `""` for `/`, `c:` for a drive, `~`/`~user` for a home. */
export interface PathShape {
  root: string;
  /** Segments after `..` and `.` are applied. */
  segments: string[];
  /** Segments with `.` and empty ones dropped but `..` kept: what the OS walks (for the realpath hook). */
  rawSegments: string[];
}

export type PathVariants = { ok: true; forms: PathShape[]; text: string[] } | { ok: false; reason: string };

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** Fullwidth solidus, reverse solidus and full stop, division slash, small reverse solidus. */
const SEPARATOR_LOOKALIKES = /[\uFF0F\uFF3C\uFF0E\u2215\uFE68]/;
const LOOKALIKE_REASON =
  "contains a look-alike of '/', '\\' or '.' that Windows best-fit conversion can turn into the real one";
const DRIVE = /^([A-Za-z]):(.*)$/s;
const PERCENT_TRIPLET = /%[0-9A-Fa-f]{2}/;

/** Every form a server might read from this argument text, each as a PathShape; or why it is refused. */
export function pathVariants(text: string): PathVariants {
  if (text.includes("\0")) return { ok: false, reason: "contains a NUL byte" };
  if (SEPARATOR_LOOKALIKES.test(text)) {
    return { ok: false, reason: LOOKALIKE_REASON };
  }
  let first = text;
  const scheme = SCHEME.exec(text);
  if (scheme !== null && scheme[1]!.length > 1) {
    if (scheme[1]!.toLowerCase() !== "file") {
      return { ok: false, reason: `is a '${scheme[1]}:' URI, not a file path` };
    }
    const unwrapped = fileUriPath(text.slice(scheme[0].length));
    if (!unwrapped.ok) return unwrapped;
    first = unwrapped.path;
    if (first.includes("\0")) return { ok: false, reason: "contains a NUL byte (percent-encoded)" };
  }

  const texts = [first];
  let current = first;
  for (let round = 0; PERCENT_TRIPLET.test(current); round++) {
    if (round === MAX_DECODE_ROUNDS) {
      return { ok: false, reason: `is percent-encoded more than ${MAX_DECODE_ROUNDS} times over` };
    }
    const next = percentDecode(current);
    if (next === null)
      return {
        ok: false,
        reason: "has percent-encoded bytes that are not UTF-8 (an overlong or broken sequence)",
      };
    if (next === current) break;
    if (next.includes("\0")) return { ok: false, reason: "contains a NUL byte (percent-encoded)" };
    texts.push(next);
    current = next;
  }

  const forms: PathShape[] = [];
  for (const t of texts) {
    if (t !== text && SEPARATOR_LOOKALIKES.test(t)) {
      return { ok: false, reason: `${LOOKALIKE_REASON} once percent-decoded` };
    }
    const shape = pathShape(t);
    if (!shape.ok) {
      return {
        ok: false,
        reason: t === first ? shape.reason : `${shape.reason} once percent-decoded ('${t}')`,
      };
    }
    forms.push(shape.shape);
  }
  return { ok: true, forms, text: texts };
}

/** Lexical shape of one absolute path text (rules 4–6). */
export function pathShape(text: string): { ok: true; shape: PathShape } | { ok: false; reason: string } {
  const s = text.replace(/\\/g, "/");
  let root: string;
  let rest: string;
  const drive = DRIVE.exec(s);
  if (drive !== null) {
    if (!drive[2]!.startsWith("/")) {
      return { ok: false, reason: "is relative to the current directory of a drive" };
    }
    root = `${drive[1]!.toLowerCase()}:`;
    rest = drive[2]!;
  } else if (s.startsWith("/")) {
    root = "";
    rest = s;
  } else if (s.startsWith("~")) {
    const slash = s.indexOf("/");
    root = slash === -1 ? s : s.slice(0, slash);
    rest = slash === -1 ? "" : s.slice(slash);
  } else {
    return {
      ok: false,
      reason: "is a relative path (the server resolves it against a working directory toolgate cannot see)",
    };
  }
  const segments: string[] = [];
  const rawSegments: string[] = [];
  for (const seg of rest.split("/")) {
    if (seg === "" || seg === ".") continue;
    rawSegments.push(seg);
    if (seg === "..") segments.pop();
    else segments.push(seg);
  }
  return { ok: true, shape: { root, segments, rawSegments } };
}

/** `inner` lies inside `outer`: same root, and `outer`'s segments are a prefix of `inner`'s (or equal, for `exact`). */
export function containedBySegment(inner: PathShape, outer: PathShape, exact: boolean): boolean {
  if (inner.root !== outer.root) return false;
  if (
    exact ? inner.segments.length !== outer.segments.length : inner.segments.length < outer.segments.length
  ) {
    return false;
  }
  for (let i = 0; i < outer.segments.length; i++) {
    if (inner.segments[i] !== outer.segments[i]) return false;
  }
  return true;
}

/** The shape written back as one path string (`/a/b`, `c:/a`, `~/a`). */
export function shapeText(shape: PathShape, raw = false): string {
  const segs = raw ? shape.rawSegments : shape.segments;
  if (shape.root === "" || /^[a-z]:$/.test(shape.root)) return `${shape.root}/${segs.join("/")}`;
  return segs.length === 0 ? shape.root : `${shape.root}/${segs.join("/")}`;
}

function fileUriPath(afterScheme: string): { ok: true; path: string } | { ok: false; reason: string } {
  if (/[?#]/.test(afterScheme)) return { ok: false, reason: "is a file URI with a query or fragment" };
  let path: string;
  if (afterScheme.startsWith("//")) {
    const slash = afterScheme.indexOf("/", 2);
    const host = slash === -1 ? afterScheme.slice(2) : afterScheme.slice(2, slash);
    if (host !== "" && host.toLowerCase() !== "localhost") {
      return { ok: false, reason: `is a file URI on another host ('${host}')` };
    }
    path = slash === -1 ? "/" : afterScheme.slice(slash);
  } else if (afterScheme.startsWith("/")) {
    path = afterScheme;
  } else {
    return { ok: false, reason: "is a file URI without an absolute path" };
  }
  const decoded = percentDecode(path);
  if (decoded === null)
    return { ok: false, reason: "is a file URI whose percent-encoded bytes are not UTF-8" };
  path = decoded;
  // file:///C:/x names the drive path C:/x.
  if (/^\/[A-Za-z]:(\/|$)/.test(path)) path = path.slice(1);
  return { ok: true, path };
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Replaces each `%XX` with its byte and reads the bytes as UTF-8; `null` when they are not UTF-8 (an
 * overlong `%c0%ae` must not quietly become U+FFFD here and `.` in some other decoder). A `%` not followed
 * by two hex digits stays as it is, as lenient decoders leave it.
 */
export function percentDecode(text: string): string | null {
  if (!text.includes("%")) return text;
  const out: string[] = [];
  let bytes: number[] = [];
  const flush = (): boolean => {
    if (bytes.length === 0) return true;
    try {
      out.push(decoder.decode(new Uint8Array(bytes)));
    } catch {
      return false;
    }
    bytes = [];
    return true;
  };
  for (let i = 0; i < text.length;) {
    if (
      text.charCodeAt(i) === 0x25 &&
      i + 2 < text.length &&
      isHex(text.charCodeAt(i + 1)) &&
      isHex(text.charCodeAt(i + 2))
    ) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      if (!flush()) return null;
      out.push(text[i]!);
      i += 1;
    }
  }
  if (!flush()) return null;
  return out.join("");
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
