import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync } from "node:fs";
import { extname, join } from "node:path";
import { parseYamlSource } from "../config/sourceTree.js";

/**
 * The candidate policies of the what-if view: files of the configuration directory itself (not of its
 * subdirectories, whose files are roles, agents, skills and sessions) that a person may pick to replay the
 * gateway's audit logs under. A file is a candidate when it is a regular file (not a link: a link could
 * name any file of the machine) named `*.yaml`, `*.yml` or `*.json`, not hidden (`.name`), at most
 * MAX_CANDIDATE_BYTES long, whose top level is a mapping with a `version` key (every policy file starts
 * with one; config.yaml, mcp.json, tokens, policy test and catalog files have none), and which is not the
 * policy in force. The page says why each other such file is left out.
 *
 * A request names a candidate only by its name in this listing, which is made again for each request: a
 * path, `..`, or a name the listing does not hold is refused (E_DASHBOARD_CANDIDATE), so no request reads a
 * file the directory does not offer.
 */

export const MAX_CANDIDATE_BYTES = 1024 * 1024;
const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

export interface CandidateListing {
  dir: string;
  candidates: string[];
  /** Files with a policy's extension left out, and why. */
  skipped: { name: string; why: string }[];
}

export function listCandidates(dir: string, inForce: string | null): CandidateListing {
  const listing: CandidateListing = { dir, candidates: [], skipped: [] };
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return listing;
  }
  const inForceReal = inForce === null ? null : realOrNull(inForce);
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const name = entry.name;
    if (!EXTENSIONS.has(extname(name).toLowerCase()) || name.startsWith(".")) continue;
    const skip = (why: string): void => void listing.skipped.push({ name, why });
    if (!entry.isFile()) {
      skip(entry.isSymbolicLink() ? "a symbolic link" : "not a regular file");
      continue;
    }
    const path = join(dir, name);
    if (inForceReal !== null && realOrNull(path) === inForceReal) {
      skip("the policy in force");
      continue;
    }
    const read = readCandidate(path);
    if (typeof read !== "string") {
      skip(read.why);
      continue;
    }
    if (!hasVersionKey(name, read)) {
      skip("not a policy file (no top-level `version:`)");
      continue;
    }
    listing.candidates.push(name);
  }
  return listing;
}

export type ChosenCandidate = { ok: true; name: string; path: string } | { ok: false; why: string };

/** The candidate a request names, if the listing holds it; else why not (a stable sentence). */
export function chooseCandidate(listing: CandidateListing, requested: string): ChosenCandidate {
  if (requested.includes("/") || requested.includes("\\") || requested === "." || requested === "..") {
    return { ok: false, why: "a candidate is named by its file name in the list, not by a path" };
  }
  if (!listing.candidates.includes(requested)) {
    return { ok: false, why: "no candidate policy of this name is in the configuration directory's list" };
  }
  return { ok: true, name: requested, path: join(listing.dir, requested) };
}

/**
 * The text of a candidate, read without following a link and only if it is a regular file of at most
 * MAX_CANDIDATE_BYTES (the file may have changed since it was listed); `why` otherwise.
 */
export function readCandidate(path: string): string | { why: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { why: code === "ELOOP" ? "a symbolic link" : `unreadable (${String(code ?? error)})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { why: "not a regular file" };
    if (stat.size > MAX_CANDIDATE_BYTES) return { why: `larger than ${MAX_CANDIDATE_BYTES} bytes` };
    const bytes = Buffer.alloc(stat.size);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, got));
    } catch {
      return { why: "not UTF-8" };
    }
  } finally {
    closeSync(fd);
  }
}

function hasVersionKey(name: string, text: string): boolean {
  const { root } = parseYamlSource(name, text);
  return root !== null && root.kind === "map" && root.entries.some((e) => e.key === "version");
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
