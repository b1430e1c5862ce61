import { randomBytes } from "node:crypto";
import type { ItemKind } from "../engine/model/decision.js";
import { substitute } from "./unknownToolAnswer.js";

/**
 * A hidden resource or prompt is answered exactly as the server answers one it does not have: the request
 * goes to the server with a random unused name in place of the hidden one (which never reaches it), and the
 * answer comes back with the hidden name put back. A resource probe keeps the URI's scheme, so a server
 * that answers per scheme answers as it would for the hidden URI.
 */
export function itemProbe(kind: ItemKind, name: string): string {
  const token = `toolgate-probe-${randomBytes(8).toString("hex")}`;
  if (kind === "prompt") return token;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:(\/\/)?/.exec(name);
  return scheme === null ? token : `${scheme[0]}${token}`;
}

/** `value` with every occurrence of `probe` inside its strings (keys too) replaced by `name`. */
export function unprobe<T>(value: T, probe: string, name: string): T {
  return substitute(value, probe, name) as T;
}
