import { DIGEST_SHOWN } from "./digest.js";

/**
 * The dashboard's one stylesheet, served from the dashboard's own origin as /ui/static/dashboard.css: the CSP
 * (`style-src 'self'`) forbids inline styles, and a file of our own needs no CDN and works offline. No fonts
 * or images are fetched.
 */
export const STYLESHEET = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5d6675; --line: #d9dde4; --bg: #f6f7f9;
  --ok: #17803d; --ok-bg: #e6f4ea; --no: #b3261e; --no-bg: #fce8e6; --warn: #8a5a00; --warn-bg: #fff4d6; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.25rem; background: #1d2330; color: #fff; }
header.top .brand { font-weight: 600; letter-spacing: .02em; }
header.top nav a { color: #cfd6e4; text-decoration: none; margin-right: 1rem; }
header.top nav a[aria-current="page"] { color: #fff; border-bottom: 2px solid #8fb4ff; }
header.top form { margin-left: auto; }
main { padding: 1rem 1.25rem 3rem; max-width: 1400px; }
h1 { font-size: 1.35rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .4rem; }
h2 .meta, .meta { color: var(--muted); font-weight: normal; font-size: .9rem; }
section.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .8rem 1rem; margin: 0 0 1rem; }
section.card > h2:first-child { margin-top: .2rem; }
form.refresh { margin-top: .7rem; }
form.context, form.search { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: end; }
form.context label, form.search label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
fieldset.skills { border: 0; padding: 0; margin: 0; display: flex; gap: .6rem; align-items: center; }
fieldset.skills legend { font-size: .85rem; color: var(--muted); padding: 0; float: left; margin-right: .4rem; }
fieldset.skills label { flex-direction: row; gap: .25rem; align-items: center; color: var(--fg); }
form.search select { max-width: 22rem; }
select, input[type="text"], input[type="password"] { font: inherit; padding: .3rem .4rem; border: 1px solid #b9c0cc; border-radius: 4px; min-width: 9rem; background: #fff; }
button { font: inherit; padding: .35rem .8rem; border-radius: 4px; border: 1px solid #2d5bd3; background: #2d5bd3; color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: #2d5bd3; }
header.top button { background: transparent; border-color: #8b95a8; color: #fff; padding: .2rem .7rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { border: 1px solid var(--line); padding: .25rem .45rem; text-align: left; vertical-align: top; }
th { background: #eef0f4; font-weight: 600; font-size: .85rem; }
table.matrix td.cell { text-align: center; width: 4.2rem; cursor: help; }
table.matrix th.col-off, table.matrix td.none { color: #a4abb8; background: #fafbfc; }
td.allow { color: var(--ok); background: var(--ok-bg); }
td.hide { color: var(--no); background: var(--no-bg); }
td.hide.first { font-weight: 700; outline: 2px solid var(--no); outline-offset: -2px; }
td.tool { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; word-break: break-all; }
td.verdict.allow, td.verdict.hide { white-space: nowrap; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: .9em; word-break: break-all; }
ul.notes { margin: .4rem 0; padding-left: 1.2rem; }
ul.notes li.warn { color: var(--warn); }
ul.notes li.error { color: var(--no); }
.status-ok { color: var(--ok); font-weight: 600; }
.status-broken { color: var(--no); font-weight: 600; }
.banner { padding: .5rem .8rem; border-radius: 4px; margin: .5rem 0; }
.banner.error { background: var(--no-bg); color: var(--no); }
.banner.warn { background: var(--warn-bg); color: var(--warn); }
nav.pages { margin: .5rem 0; display: flex; flex-wrap: wrap; gap: .35rem; align-items: center; }
nav.pages a, nav.pages span { padding: .1rem .45rem; border: 1px solid var(--line); border-radius: 3px; text-decoration: none; background: #fff; }
nav.pages span[aria-current="page"] { background: #2d5bd3; color: #fff; border-color: #2d5bd3; }
tr.untrusted td { background: var(--warn-bg); }
.login { max-width: 24rem; margin: 12vh auto; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1.5rem; }
.login label { display: flex; flex-direction: column; gap: .3rem; margin: 1rem 0; }
.login input { width: 100%; }
.counts { display: flex; gap: .25rem; margin: .75rem 0; min-height: 1.6rem; align-items: center; }
.bar { padding: .2rem .4rem; color: #fff; border-radius: 3px; min-width: 5rem; white-space: nowrap; }
.bar-allow { background: #2e7d32; } .bar-deny { background: #c62828; } .bar-hidden { background: #6d6d6d; }
.counts .lists { margin-left: .75rem; color: var(--muted); white-space: nowrap; }
span.digest { white-space: nowrap; }
span.digest > code { display: inline-block; width: ${DIGEST_SHOWN}ch; overflow: hidden; vertical-align: bottom;
  white-space: nowrap; word-break: normal; user-select: all; -webkit-user-select: all; cursor: copy; }
span.digest::after { content: "…"; }
td.nowrap { white-space: nowrap; }
td.prose { min-width: 9rem; }
table.events { font-size: .9rem; }
table.events td.mono { word-break: normal; overflow-wrap: anywhere; min-width: 5rem; }
table.events td.args { white-space: nowrap; }
section.card { overflow-x: auto; }
table.live td:first-child { white-space: nowrap; font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: .9em; }
tr.verdict-deny td, tr.verdict-would-deny td { background: var(--warn-bg); }
section.approval { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; margin: 1rem 0; }
section.approval pre { white-space: pre-wrap; }
section.approval button { margin-right: .5rem; }
`;
