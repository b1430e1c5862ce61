/**
 * Who a request is: the principal. It is made once, when a request is admitted, and everything that says
 * "who" keys on it: sessions and their quotas, limits, shared upstream servers, request states, approval
 * artifacts, the approval desk, the audit log and the dashboard. Nothing keys on an entry's label alone,
 * and no two issuers' subjects are ever one principal.
 *
 * - `token`: a static token of the tokens file (or `--token`); the entry's name is unique in its file.
 * - `oauth`: an OAuth access token: its issuer **and** subject, with the `claims:` entry that matched (the
 *   entry gives the context; the same person under two entries is two principals with two contexts, but
 *   one person to the rule that nobody answers their own call).
 * - `local`: the one client of a stdio surface (wrap, serve --stdio), or the operator of the local
 *   dashboard.
 */
export type PrincipalKind = "token" | "oauth" | "local";

export interface Principal {
  kind: PrincipalKind;
  /** The tokens-file entry that admitted it (its name), `token` for `--token`, `stdio` for a stdio client. */
  entry: string;
  /** OAuth only: the token's `iss`. */
  issuer?: string;
  /** OAuth only: the token's `sub` (`""` when it has none, e.g. some client-credentials tokens). */
  subject?: string;
  /** The one key everything indexes by (limits, pools, sessions, states): never shown, never parsed. */
  key: string;
  /** How logs, the audit log and the dashboard name it: `ci`, `alice (sub 1234 at https://idp)`. */
  name: string;
}

/** What a principal may do (a tokens-file entry's `use:`, `dashboard:` and `approves:`). */
export interface PrincipalRights {
  /** Call tools through /mcp (`use: [mcp]`, the default). */
  mcp: boolean;
  /** Sign in to the dashboard (`use: [dashboard]`), and as what. */
  dashboard: "viewer" | "approver" | null;
  /** Approvers only: whose calls they may answer (entry names); `null`: every principal's but their own. */
  approves: readonly string[] | null;
}

/** Someone signed in to the dashboard: who, and what their entry lets them do there. */
export interface Operator {
  principal: Principal;
  rights: PrincipalRights;
}

export const CLIENT_RIGHTS: PrincipalRights = { mcp: true, dashboard: null, approves: null };

export function tokenPrincipal(entry: string): Principal {
  return { kind: "token", entry, key: JSON.stringify(["token", entry]), name: entry };
}

export function oauthPrincipal(entry: string, issuer: string, subject: string): Principal {
  const who = subject === "" ? `no subject at ${issuer}` : `${subject} at ${issuer}`;
  return {
    kind: "oauth",
    entry,
    issuer,
    subject,
    key: JSON.stringify(["oauth", entry, issuer, subject]),
    name: `${entry} (${who})`,
  };
}

export function localPrincipal(entry = "stdio"): Principal {
  return { kind: "local", entry, key: JSON.stringify(["local", entry]), name: entry };
}

/**
 * True when `a` and `b` are the same person to the rule that nobody answers their own call: the same
 * entry of a static token, or the same issuer and subject whatever entry matched (a subject-less OAuth
 * token is one only with itself under the same entry, since nothing else tells two such tokens apart).
 */
export function samePerson(a: Principal, b: Principal): boolean {
  if (a.kind === "oauth" && b.kind === "oauth" && a.subject !== "" && b.subject !== "")
    return a.issuer === b.issuer && a.subject === b.subject;
  return a.key === b.key;
}

/** Whether `approver` (with `rights`) may answer a call `requester` made: approvers only, never their own. */
export function mayAnswer(
  approver: Principal,
  rights: PrincipalRights,
  requester: Principal,
): { ok: true } | { ok: false; why: string } {
  if (rights.dashboard !== "approver")
    return {
      ok: false,
      why: `${approver.name} may view the dashboard but not answer calls (dashboard: viewer)`,
    };
  if (samePerson(approver, requester))
    return { ok: false, why: `${approver.name} made this call and cannot approve it themselves` };
  if (rights.approves !== null && !rights.approves.includes(requester.entry))
    return {
      ok: false,
      why: `${approver.name} approves only the calls of ${rights.approves.join(", ")}, not of ${requester.entry}`,
    };
  return { ok: true };
}
