import type { ToolgateCode } from "../engine/model/codes.js";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import type { ClaimMatch } from "../engine/model/claims.js";
import type { ContextSelection } from "../engine/model/configDir.js";
import type { Diagnostic } from "../engine/model/diagnostics.js";
import { appendAll } from "../engine/model/diagnostics.js";
import type { SourceRef, SourceMap, SourceNode } from "../engine/model/source.js";
import type { PrincipalRights } from "../engine/model/principal.js";
import { describeKind, parseYamlSource } from "./sourceTree.js";
import { parseRights, checkApprovesNames, CONTEXT_FIELDS } from "./tokenRights.js";

/**
 * `--tokens FILE`: the bearer tokens `toolgate serve --http` accepts, each bound to the context its clients
 * get. A YAML list:
 *
 * ```yaml
 * - name: reviewer-bot            # unique in the file; shown in logs, the audit log, the dashboard
 *   token_sha256: 9f86d08…        # hex SHA-256 of the token (preferred: the file then holds no secret)
 *   role: reviewer
 * - token: s3cret-for-the-ci-job  # or the token itself
 *   agent: ci
 *   skills: [triage]
 * - name: alice                   # an operator: the dashboard, not /mcp
 *   token_sha256: 3b1f…
 *   use: [dashboard]              # default [mcp]; [mcp, dashboard] for both
 *   dashboard: approver           # viewer (the default): matrix, live, audit; approver: also answer calls
 *   approves: [reviewer-bot]      # optional: only these principals' calls
 * ```
 *
 * A client gets exactly its token's context and cannot pick another. Because a typo in a security file
 * must not widen access, every problem is an error (unknown keys included), not a warning. Names are
 * unique (an entry without one is `token #<n>` / `entry #<n>`), since everything that says "who" keys on
 * them. Parsing is pure; {@link loadTokensFile} reads the file.
 */

export interface TokenEntry {
  /** SHA-256 of the token (32 bytes). */
  digest: Buffer;
  /** `name`, else `token #<n>` (1-based position in the file). */
  label: string;
  selection: ContextSelection;
  rights: PrincipalRights;
  at: SourceRef;
}

/** An OAuth principal: a token whose claims match `claims` gets this context (serve --oauth-issuer). */
export interface PrincipalEntry {
  label: string;
  claims: ClaimMatch;
  selection: ContextSelection;
  rights: PrincipalRights;
  at: SourceRef;
}

const CLAIM_FIELDS = ["sub", "client_id", "scope", "groups", "iss"];

export const TOKEN_ENTRY_FIELDS = [
  "name",
  "token",
  "token_sha256",
  "claims",
  "role",
  "agent",
  "session",
  "skills",
  "node",
  "use",
  "dashboard",
  "approves",
];
/** Shorter plain tokens are refused: a bearer token must not be guessable. */
export const MIN_TOKEN_LENGTH = 16;

export function tokenDigest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

function error(code: ToolgateCode, message: string, at: SourceRef): Diagnostic {
  return { severity: "error", code, message, ...at };
}

function stringValue(node: SourceNode, field: string, diagnostics: Diagnostic[]): string | null {
  if (node.kind === "scalar" && typeof node.value === "string" && node.value !== "") return node.value;
  diagnostics.push(
    error(
      "E_TOKENS_FIELD",
      `'${field}' must be a non-empty string, but this is ${describeKind(node)}`,
      node.at,
    ),
  );
  return null;
}

function parseEntry(
  node: SourceMap,
  index: number,
  diagnostics: Diagnostic[],
): TokenEntry | PrincipalEntry | null {
  const before = diagnostics.length;
  let digest: Buffer | null = null;
  let claims: ClaimMatch | null = null;
  let name: string | null = null;
  const selection: ContextSelection = { skills: [] };
  const has = (key: string): boolean => node.entries.some((e) => e.key === key);
  if ([has("token"), has("token_sha256"), has("claims")].filter(Boolean).length !== 1) {
    diagnostics.push(
      error(
        "E_TOKENS_ENTRY",
        "each entry needs exactly one of 'token', 'token_sha256' and 'claims' (an OAuth principal)",
        node.at,
      ),
    );
  }
  for (const e of node.entries) {
    const v = e.value;
    switch (e.key) {
      case "name":
        name = stringValue(v, e.key, diagnostics);
        break;
      case "token": {
        const token = stringValue(v, e.key, diagnostics);
        if (token === null) break;
        if (token.length < MIN_TOKEN_LENGTH) {
          diagnostics.push(
            error("E_TOKENS_WEAK", `'token' must be at least ${MIN_TOKEN_LENGTH} characters long`, v.at),
          );
          break;
        }
        digest = tokenDigest(token);
        break;
      }
      case "token_sha256": {
        const hex = stringValue(v, e.key, diagnostics);
        if (hex === null) break;
        if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
          diagnostics.push(
            error("E_TOKENS_FIELD", "'token_sha256' must be 64 hexadecimal digits (a SHA-256)", v.at),
          );
          break;
        }
        digest = Buffer.from(hex, "hex");
        break;
      }
      case "claims":
        claims = parseClaims(v, diagnostics);
        break;
      case "role":
      case "agent":
      case "session":
      case "node": {
        const value = stringValue(v, e.key, diagnostics);
        if (value !== null) selection[e.key] = value;
        break;
      }
      case "skills": {
        if (v.kind === "seq") {
          for (const item of v.items) {
            const skill = stringValue(item, "skills[]", diagnostics);
            if (skill !== null) selection.skills.push(skill);
          }
        } else {
          diagnostics.push(
            error(
              "E_TOKENS_FIELD",
              `'skills' must be a list of skill names, but this is ${describeKind(v)}`,
              v.at,
            ),
          );
        }
        break;
      }
      case "use":
      case "dashboard":
      case "approves":
        // Read together once every field is known (parseRights).
        break;
      default:
        diagnostics.push(
          error(
            "E_TOKENS_FIELD",
            `unknown field '${e.key}' (known: ${TOKEN_ENTRY_FIELDS.join(", ")}); refused rather than ignored, ` +
              `since an ignored restriction would widen access`,
            e.keyAt,
          ),
        );
    }
  }
  const rights = parseRights(node, diagnostics);
  if (rights !== null && !rights.mcp) {
    for (const e of node.entries) {
      if (CONTEXT_FIELDS.includes(e.key)) {
        diagnostics.push(
          error(
            "E_TOKENS_FIELD",
            `'${e.key}' chooses an MCP client's context, but this entry's use has no 'mcp' (it cannot call tools): remove '${e.key}' or add mcp to use`,
            e.keyAt,
          ),
        );
      }
    }
  }
  if (diagnostics.length > before || rights === null) return null;
  const label = name ?? `entry #${index + 1}`;
  if (claims !== null) return { label, claims, selection, rights, at: node.at };
  if (digest === null) return null;
  return { digest, label: name ?? `token #${index + 1}`, selection, rights, at: node.at };
}

/** `claims:` conditions that must all hold: `sub`, `client_id`, `iss` (strings), `scope`, `groups` (lists). */
function parseClaims(node: SourceNode, diagnostics: Diagnostic[]): ClaimMatch | null {
  if (node.kind !== "map" || node.entries.length === 0) {
    diagnostics.push(
      error(
        "E_TOKENS_FIELD",
        `'claims' must be a map of conditions (${CLAIM_FIELDS.join(", ")}), but this is ${describeKind(node)}`,
        node.at,
      ),
    );
    return null;
  }
  const out: ClaimMatch = {};
  for (const e of node.entries) {
    if (e.key === "scope" || e.key === "groups") {
      const items = e.value.kind === "seq" ? e.value.items : [e.value];
      const list = items.map((item) => stringValue(item, `claims.${e.key}`, diagnostics));
      // A scope entry may list several, space-separated (scopes hold no spaces); a group entry is one
      // group's name, spaces included: split, "mcp admins" would match a token's ["mcp", "admins"].
      if (list.every((x): x is string => x !== null))
        out[e.key] = e.key === "scope" ? list.flatMap((x) => x.split(" ")).filter((x) => x !== "") : list;
    } else if (e.key === "sub" || e.key === "client_id" || e.key === "iss") {
      const value = stringValue(e.value, `claims.${e.key}`, diagnostics);
      if (value !== null) out[e.key] = value;
    } else {
      diagnostics.push(
        error(
          "E_TOKENS_FIELD",
          `unknown claim condition '${e.key}' (known: ${CLAIM_FIELDS.join(", ")}); refused rather than ignored, since an ignored condition would widen access`,
          e.keyAt,
        ),
      );
    }
  }
  return out;
}

/** Parses the text of a tokens file. Pure. */
export function parseTokensFile(
  file: string,
  text: string,
): { entries: TokenEntry[]; principals: PrincipalEntry[]; diagnostics: Diagnostic[] } {
  const parsed = parseYamlSource(file, text);
  const diagnostics = [...parsed.diagnostics];
  const entries: TokenEntry[] = [];
  const principals: PrincipalEntry[] = [];
  const root = parsed.root;
  if (root === null) {
    if (diagnostics.length === 0) {
      diagnostics.push({
        severity: "error",
        code: "E_TOKENS_EMPTY",
        message: "the tokens file is empty; it needs a list of token entries",
        file,
        line: 0,
        column: 0,
        path: "",
      });
    }
    return { entries, principals, diagnostics };
  }
  if (root.kind !== "seq") {
    diagnostics.push(
      error(
        "E_TOKENS_FILE",
        `the tokens file must be a list of entries, but this is ${describeKind(root)}`,
        root.at,
      ),
    );
    return { entries, principals, diagnostics };
  }
  const seen = new Map<string, TokenEntry>();
  const named = new Map<string, TokenEntry | PrincipalEntry>();
  const read: SourceMap[] = [];
  root.items.forEach((item, index) => {
    if (item.kind !== "map") {
      diagnostics.push(
        error(
          "E_TOKENS_ENTRY",
          `an entry must be a map with 'token' or 'token_sha256', but this is ${describeKind(item)}`,
          item.at,
        ),
      );
      return;
    }
    const entry = parseEntry(item, index, diagnostics);
    if (entry === null) return;
    const sameName = named.get(entry.label);
    if (sameName !== undefined) {
      diagnostics.push(
        error(
          "E_TOKENS_DUPLICATE",
          `the name '${entry.label}' is already used by the entry at line ${sameName.at.line}; every entry needs a name of its own, since limits, sessions, approvals and the audit log key on it`,
          entry.at,
        ),
      );
      return;
    }
    named.set(entry.label, entry);
    read.push(item);
    if ("claims" in entry) {
      principals.push(entry);
      return;
    }
    const key = entry.digest.toString("hex");
    const first = seen.get(key);
    if (first !== undefined) {
      diagnostics.push(
        error(
          "E_TOKENS_DUPLICATE",
          `this token is already listed at line ${first.at.line} (${first.label}); one token, one context`,
          entry.at,
        ),
      );
      return;
    }
    seen.set(key, entry);
    entries.push(entry);
  });
  if (root.items.length === 0) {
    diagnostics.push(error("E_TOKENS_EMPTY", "the tokens file lists no tokens", root.at));
  }
  appendAll(diagnostics, checkApprovesNames(read, new Set(named.keys())));
  return { entries, principals, diagnostics };
}

export function loadTokensFile(file: string): {
  entries: TokenEntry[];
  principals: PrincipalEntry[];
  diagnostics: Diagnostic[];
} {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return {
      entries: [],
      principals: [],
      diagnostics: [
        {
          severity: "error",
          code: "E_TOKENS_READ",
          message: `cannot read the tokens file: ${(e as Error).message}`,
          file,
          line: 0,
          column: 0,
          path: "",
        },
      ],
    };
  }
  return parseTokensFile(file, text);
}
