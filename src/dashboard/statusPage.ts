import type { GatewayStatus } from "../ops/gatewayStatus.js";
import { markup, type SafeHtml } from "./html.js";

/**
 * /ui/status: the gateway at a glance, from the same counters `/metrics` serves (ops/promMetrics.ts): each
 * server's state and last error, sessions by era, calls waiting for approval, decisions per minute. Only
 * operators see it (like every page here): a server's last error can name paths and hosts. Reloads itself
 * every 5 s (a meta refresh: no script needed).
 */
export function statusBody(status: GatewayStatus | null): SafeHtml {
  if (status === null) {
    return markup`<p class="banner">The status panel shows a running gateway: <code>toolgate serve --http --dashboard</code>.</p>`;
  }
  return markup`<meta http-equiv="refresh" content="5" />
    <section id="status-figures">
      <table class="events">
        <tbody>
          <tr><th>Sessions (2025-11-25 era)</th><td id="sessions-legacy">${status.sessions.legacy}</td></tr>
          <tr><th>Sessions (2026-07-28 era)</th><td id="sessions-modern">${status.sessions.modern}</td></tr>
          <tr><th>Approvals waiting</th><td id="approvals-waiting">${status.approvalsWaiting}</td></tr>
          <tr><th>Decisions per minute</th><td id="decisions-per-minute">${status.decisionsPerMinute}</td></tr>
          <tr><th>Decisions since start</th><td id="decisions-total">${status.decisionsTotal}</td></tr>
        </tbody>
      </table>
    </section>
    <h2>Servers</h2>
    ${
      status.servers.length === 0
        ? markup`<p class="meta" id="no-servers">No session has needed a server yet.</p>`
        : markup`<table class="events" id="servers">
            <thead><tr><th>Server</th><th>State</th><th>Restarts</th><th>Last error</th></tr></thead>
            <tbody>
              ${status.servers.map(
                (s) => markup`<tr data-server="${s.server}">
                  <td class="mono">${s.server}</td>
                  <td class="state">${s.state ?? "not connected"}</td>
                  <td>${s.restarts}</td>
                  <td class="mono">${s.lastError ?? ""}</td>
                </tr>`,
              )}
            </tbody>
          </table>`
    }`;
}
