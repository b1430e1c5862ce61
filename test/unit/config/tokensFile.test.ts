import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../../src/engine/model/diagnostics.js";
import { parseTokensFile, tokenDigest } from "../../../src/config/tokensFile.js";

const sha = (t: string): string => createHash("sha256").update(t).digest("hex");

describe("tokens file", () => {
  it("binds each token to its context", () => {
    const text = [
      "- name: reviewer-bot",
      `  token_sha256: ${sha("reviewer-token-0123456789")}`,
      "  role: reviewer",
      "- token: ci-token-abcdefghijklmnop",
      "  agent: ci",
      "  session: nightly",
      "  skills: [triage, git]",
      "  node: review",
      "",
    ].join("\n");
    const { entries, diagnostics } = parseTokensFile("tokens.yaml", text);
    expect(diagnostics).toEqual([]);
    expect(entries.map((e) => [e.label, e.selection, e.digest.toString("hex")])).toEqual([
      ["reviewer-bot", { skills: [], role: "reviewer" }, sha("reviewer-token-0123456789")],
      [
        "token #2",
        { skills: ["triage", "git"], agent: "ci", session: "nightly", node: "review" },
        tokenDigest("ci-token-abcdefghijklmnop").toString("hex"),
      ],
    ]);
  });

  it.each<[string, string, string]>([
    [
      "not a list",
      "token: x\n",
      "tokens.yaml:1:1: error E_TOKENS_FILE the tokens file must be a list of entries, but this is a map",
    ],
    ["an empty list", "[]\n", "tokens.yaml:1:1: error E_TOKENS_EMPTY the tokens file lists no tokens"],
    [
      "neither token nor digest",
      "- role: r\n",
      "tokens.yaml:1:3: error E_TOKENS_ENTRY [0]: each entry needs exactly one of 'token', 'token_sha256' and 'claims' (an OAuth principal)",
    ],
    [
      "both token and digest",
      `- token: aaaaaaaaaaaaaaaaaaaa\n  token_sha256: ${sha("x")}\n`,
      "tokens.yaml:1:3: error E_TOKENS_ENTRY [0]: each entry needs exactly one of 'token', 'token_sha256' and 'claims' (an OAuth principal)",
    ],
    [
      "a short token",
      "- token: short\n",
      "tokens.yaml:1:10: error E_TOKENS_WEAK [0].token: 'token' must be at least 16 characters long",
    ],
    [
      "a bad digest",
      "- token_sha256: abc\n",
      "tokens.yaml:1:17: error E_TOKENS_FIELD [0].token_sha256: 'token_sha256' must be 64 hexadecimal digits (a SHA-256)",
    ],
    [
      "an unknown key (a typo must not widen access)",
      "- token: aaaaaaaaaaaaaaaaaaaa\n  rol: reviewer\n",
      "tokens.yaml:2:3: error E_TOKENS_FIELD [0].rol: unknown field 'rol' (known: name, token, token_sha256, claims, role, agent, session, skills, node, use, dashboard, approves); refused rather than ignored, since an ignored restriction would widen access",
    ],
    [
      "skills as a string",
      "- token: aaaaaaaaaaaaaaaaaaaa\n  skills: triage\n",
      "tokens.yaml:2:11: error E_TOKENS_FIELD [0].skills: 'skills' must be a list of skill names, but this is a string (triage)",
    ],
    [
      "two entries with one name",
      "- name: alice\n  token: aaaaaaaaaaaaaaaaaaaa\n- name: alice\n  claims: { scope: read }\n",
      "tokens.yaml:3:3: error E_TOKENS_DUPLICATE [1]: the name 'alice' is already used by the entry at line 1; every entry needs a name of its own, since limits, sessions, approvals and the audit log key on it",
    ],
    [
      "an unknown use",
      "- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n  use: [mcp, dashbaord]\n",
      "tokens.yaml:3:8: error E_TOKENS_FIELD [0].use: 'use' must list what this principal may use: mcp, dashboard (e.g. use: [dashboard]), but this is 'dashbaord'",
    ],
    [
      "dashboard: without use: dashboard",
      "- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n  dashboard: approver\n",
      "tokens.yaml:3:14: error E_TOKENS_FIELD [0].dashboard: 'dashboard: approver' has no effect unless use lists dashboard: write use: [dashboard] (or [mcp, dashboard])",
    ],
    [
      "approves: for a viewer",
      "- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n  use: [dashboard]\n  approves: [a]\n",
      "tokens.yaml:4:13: error E_TOKENS_FIELD [0].approves: 'approves' applies to approvers only: add dashboard: approver (and use: [dashboard])",
    ],
    [
      "approves: naming no entry",
      "- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n  use: [dashboard]\n  dashboard: approver\n  approves: [ci]\n",
      "tokens.yaml:5:14: error E_TOKENS_FIELD [0].approves[0]: 'approves' names 'ci', which no entry of this file is (names: a)",
    ],
    [
      "a context for an entry that cannot call tools",
      "- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n  use: [dashboard]\n  role: reviewer\n",
      "tokens.yaml:4:3: error E_TOKENS_FIELD [0].role: 'role' chooses an MCP client's context, but this entry's use has no 'mcp' (it cannot call tools): remove 'role' or add mcp to use",
    ],
    [
      "the same token twice",
      `- token: aaaaaaaaaaaaaaaaaaaa\n- token_sha256: ${sha("aaaaaaaaaaaaaaaaaaaa")}\n`,
      "tokens.yaml:2:3: error E_TOKENS_DUPLICATE [1]: this token is already listed at line 1 (token #1); one token, one context",
    ],
  ])("refuses %s with file:line", (_what, text, expected) => {
    const { entries, diagnostics } = parseTokensFile("tokens.yaml", text);
    expect(diagnostics.map(formatDiagnostic)).toEqual([expected]);
    if (!expected.includes("DUPLICATE") && !expected.includes("approves[0]")) expect(entries).toEqual([]);
  });
});

describe("tokens file: OAuth principals", () => {
  it("reads claims: entries as principals, with every condition, and refuses an unknown condition", () => {
    const ok = parseTokensFile(
      "tokens.yaml",
      "- name: ci\n  claims: { client_id: ci, scope: [tools:call], groups: admins, sub: x, iss: http://i }\n  role: ci\n",
    );
    expect(ok.diagnostics).toEqual([]);
    expect(ok.principals).toMatchObject([
      {
        label: "ci",
        claims: { client_id: "ci", scope: ["tools:call"], groups: ["admins"], sub: "x", iss: "http://i" },
        selection: { role: "ci" },
      },
    ]);
    const typo = parseTokensFile("tokens.yaml", "- claims: { subject: x }\n");
    expect(typo.principals).toEqual([]);
    expect(typo.diagnostics.map((d) => d.message)[0]).toContain("unknown claim condition 'subject'");
  });
});

describe("tokens file: what each principal may do", () => {
  it("use: defaults to [mcp]; a dashboard entry is a viewer unless it says approver; approves: narrows", () => {
    const { entries, principals, diagnostics } = parseTokensFile(
      "tokens.yaml",
      [
        "- name: bot",
        "  token: aaaaaaaaaaaaaaaaaaaa",
        "- name: viewer",
        "  token: bbbbbbbbbbbbbbbbbbbb",
        "  use: [dashboard]",
        "- name: alice",
        "  token: cccccccccccccccccccc",
        "  use: [mcp, dashboard]",
        "  dashboard: approver",
        "  approves: [bot, team]",
        "- name: team",
        "  claims: { groups: [mcp] }",
        "  use: mcp",
      ].join("\n") + "\n",
    );
    expect(diagnostics).toEqual([]);
    expect(entries.map((e) => [e.label, e.rights])).toEqual([
      ["bot", { mcp: true, dashboard: null, approves: null }],
      ["viewer", { mcp: false, dashboard: "viewer", approves: null }],
      ["alice", { mcp: true, dashboard: "approver", approves: ["bot", "team"] }],
    ]);
    expect(principals[0]!.rights).toEqual({ mcp: true, dashboard: null, approves: null });
  });
});

describe("tokens file: claim conditions read strictly", () => {
  it("keeps a group entry whole (spaces included) and splits a scope entry on spaces", () => {
    const { principals, diagnostics } = parseTokensFile(
      "tokens.yaml",
      '- name: admins\n  claims: { groups: ["mcp admins", ops], scope: "tools:call tools:read" }\n- name: one\n  claims: { groups: "mcp admins" }\n',
    );
    expect(diagnostics).toEqual([]);
    expect(principals.map((p) => p.claims)).toEqual([
      { groups: ["mcp admins", "ops"], scope: ["tools:call", "tools:read"] },
      { groups: ["mcp admins"] },
    ]);
  });
});
