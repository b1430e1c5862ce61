import { markup, type SafeHtml } from "./html.js";

/**
 * The frame of every page: the stylesheet (a file of the same origin, for the CSP), the navigation, the
 * sign-out button with the session's CSRF token. No script anywhere: everything is a link or a form.
 */

export type PageName = "matrix" | "audit" | "whatif" | "live" | "approvals" | "status";

const NAV: readonly [PageName, string, string][] = [
  ["matrix", "/ui/", "Verdict matrix"],
  ["live", "/ui/live", "Live"],
  ["audit", "/ui/audit", "Audit"],
  ["whatif", "/ui/whatif", "What if"],
  ["approvals", "/ui/approvals", "Approvals"],
  ["status", "/ui/status", "Status"],
];

function shell(title: string, body: SafeHtml): string {
  return markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${title} · toolgate</title>
        <link rel="stylesheet" href="/ui/static/dashboard.css" />
      </head>
      <body>
        ${body}
      </body>
    </html> `.text;
}

/** A page of a signed-in session. */
export function page(title: string, current: PageName, csrf: string, body: SafeHtml): string {
  const links = NAV.map(([name, href, label]) =>
    name === current
      ? markup`<a href="${href}" aria-current="page">${label}</a>`
      : markup`<a href="${href}">${label}</a>`,
  );
  return shell(
    title,
    markup`<header class="top">
        <span class="brand">toolgate dashboard</span>
        <nav>${links}</nav>
        <form method="post" action="/ui/logout">
          <input type="hidden" name="csrf" value="${csrf}" /><button type="submit">Sign out</button>
        </form>
      </header>
      <main>
        <h1>${title}</h1>
        ${body}
      </main>`,
  );
}

/**
 * The sign-in page, and the whole answer to any request without a session: one password field, nothing of
 * the configuration or the logs. `nonce` is the double-submit value also set as a cookie (there is no
 * session yet to hold a CSRF token).
 */
export function loginPage(nonce: string, message: string | null, provider: string | null = null): string {
  return shell(
    "Sign in",
    markup`<main class="login">
      <h1>toolgate dashboard</h1>
      <p class="meta">
        Sign in with the dashboard's token (<code>--token</code> or <code>$TOOLGATE_TOKEN</code>).
      </p>
      ${message !== null && markup`<p class="banner error" role="alert">${message}</p>`}
      <form method="post" action="/ui/login">
        <input type="hidden" name="csrf" value="${nonce}" />
        <label
          >Token <input type="password" name="token" autocomplete="current-password" required autofocus
        /></label>
        <button type="submit">Sign in</button>
      </form>
      ${
        provider !== null &&
        // A link, not a form: the CSP's form-action 'self' would stop the redirect to the provider.
        markup`<p><a class="button" href="/ui/oauth/start">Sign in with ${provider}</a></p>`
      }
    </main>`,
  );
}

/** A refusal or failure: its code (when it has one) and one sentence, nothing else. */
export function problemPage(title: string, code: string | null, message: string): string {
  return shell(
    title,
    markup`<main class="login">
      <h1>${title}</h1>
      <p class="banner error">${code !== null && markup`<code>${code}</code> `}${message}</p>
      <p><a href="/ui/">Back to the dashboard</a></p>
    </main>`,
  );
}
