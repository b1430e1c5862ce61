import type { IncomingMessage, ServerResponse } from "node:http";
import type { Operator } from "../engine/model/principal.js";
import { markup } from "./html.js";
import { problemPage } from "./layout.js";
import { redirect, send } from "./respond.js";

/**
 * Signing in with the identity provider (serve --dashboard with OAuth): /ui/oauth/start sends the browser
 * to the provider; /ui/oauth/callback takes it back, checks the attempt and the access token, and opens a
 * session for the principal the token maps to.
 */
export interface OAuthSignIn {
  /** The provider's name on the sign-in page. */
  label: string;
  start(redirectUri: string): Promise<{ location: string; nonce: string }>;
  finish(
    params: URLSearchParams,
    nonce: string | undefined,
    redirectUri: string,
  ): Promise<{ who: Operator } | { problem: string }>;
}

const NONCE_COOKIE = "tg_oauth";

/**
 * The attempt's nonce cookie is SameSite=Lax, not Strict: the provider sends the browser back with a
 * top-level navigation from its own site, on which a Strict cookie would not come.
 */
function nonceCookie(value: string, maxAge: number): string {
  return `${NONCE_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=/ui/oauth; Max-Age=${maxAge}`;
}

/** Handles the two routes; `false` for any other path. */
export async function oauthRoute(
  path: string,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
  cookies: Map<string, string>,
  signIn: OAuthSignIn | undefined,
  openSession: (who: Operator) => string,
): Promise<boolean> {
  if (signIn === undefined || (path !== "/ui/oauth/start" && path !== "/ui/oauth/callback")) return false;
  const redirectUri = `http://${req.headers.host ?? ""}/ui/oauth/callback`;
  if (path === "/ui/oauth/start") {
    const attempt = await signIn.start(redirectUri);
    redirect(res, attempt.location, { "Set-Cookie": nonceCookie(attempt.nonce, 600) });
    return true;
  }
  const done = await signIn.finish(url.searchParams, cookies.get(NONCE_COOKIE), redirectUri);
  if ("problem" in done) {
    send(res, 401, problemPage("Not signed in", "E_DASHBOARD_AUTH", done.problem), {
      "Set-Cookie": nonceCookie("", 0),
    });
    return true;
  }
  const sessionCookie = openSession(done.who);
  // A page of our own moves on to /ui/: a redirect would still count as the provider's navigation, and the
  // session's SameSite=Strict cookie would not be sent with it.
  const page = markup`<!doctype html><html lang="en"><head><meta charset="utf-8" /><meta http-equiv="refresh" content="0;url=/ui/" /><title>Signed in · toolgate</title></head><body><p>Signed in. <a href="/ui/">Continue</a></p></body></html>`;
  send(res, 200, page.text, { "Set-Cookie": [sessionCookie, nonceCookie("", 0)] });
  return true;
}
