// The live view's counts from the feed's events: what kind each decision is (a tools/list is never a deny),
// which events fall in the five-minute window, and what the page is first drawn with.
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../../../src/audit/events.js";
import { LiveFeed } from "../../../src/audit/liveFeed.js";
import { countOf, liveKind, recentEvents } from "../../../src/dashboard/liveCounts.js";
import { liveBody } from "../../../src/dashboard/livePage.js";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const base = { session: "s", policy_digest: null, request_id: 1, client: "stdio", server: "m" };

function call(decision: "allow" | "deny" | "hidden" | "would-deny" | "would-hide", ago: number): AuditEvent {
  return {
    ...base,
    time: new Date(NOW - ago).toISOString(),
    event: "tools/call",
    tool: "echo",
    decision,
    code: decision === "allow" ? null : "E_TOOL_DENIED",
    rule: null,
    reason: "",
    warnings: [],
    args_sha256: "a".repeat(64),
  };
}

function list(hidden: number, ago: number, decision: "filtered" | "would-filter" = "filtered"): AuditEvent {
  return {
    ...base,
    time: new Date(NOW - ago).toISOString(),
    event: "tools/list",
    decision,
    shown: 3,
    hidden,
    hidden_tools: [],
  };
}

describe("liveKind", () => {
  it("sorts calls into allow, deny and hidden, dry-run outcomes as what they would be", () => {
    expect(liveKind(call("allow", 0))).toBe("allow");
    expect(liveKind(call("deny", 0))).toBe("deny");
    expect(liveKind(call("would-deny", 0))).toBe("deny");
    expect(liveKind(call("hidden", 0))).toBe("hidden");
    expect(liveKind(call("would-hide", 0))).toBe("hidden");
  });

  it("a tools/list is a list, never a deny, filtered or would-filter alike", () => {
    expect(liveKind(list(2, 0))).toBe("list");
    expect(liveKind(list(0, 0, "would-filter"))).toBe("list");
  });

  it("a refused request other than a call is a deny", () => {
    const event: AuditEvent = {
      ...base,
      time: new Date(NOW).toISOString(),
      event: "request",
      method: "resources/read",
      decision: "deny",
      code: "E_RATE_LIMIT",
      rule: null,
      reason: "",
    };
    expect(liveKind(event)).toBe("deny");
  });
});

describe("recentEvents and countOf", () => {
  it("counts the events of the last five minutes; lists apart, with the tools they hid", () => {
    const events = [
      call("allow", 400_000), // outside the window
      call("allow", 200_000),
      call("allow", 1_000),
      call("deny", 2_000),
      call("hidden", 3_000),
      list(2, 4_000),
      list(1, 299_000),
    ];
    const recent = recentEvents(events, NOW);
    expect(recent.map((e) => e.age)).toEqual([200_000, 1_000, 2_000, 3_000, 4_000, 299_000]);
    expect(countOf(recent)).toEqual({ allow: 2, deny: 1, hidden: 1, lists: 2, listHidden: 3 });
  });

  it("an event stamped ahead of the gateway's clock counts as new", () => {
    expect(recentEvents([call("deny", -5_000)], NOW)).toEqual([{ age: 0, kind: "deny", hid: 0 }]);
  });
});

describe("the page as first drawn", () => {
  it("carries the counts and the window's events for the script, under the page's filter", () => {
    const feed = new LiveFeed();
    const now = Date.now();
    for (const e of [call("allow", 1_000), call("deny", 2_000), list(4, 3_000)]) {
      feed.write({ ...e, time: new Date(now - (NOW - Date.parse(e.time))).toISOString() });
    }
    const page = liveBody(feed, new URLSearchParams()).text;
    expect(page).toContain(">allow 1<");
    expect(page).toContain(">deny 1<");
    expect(page).toContain(">hidden 0<");
    expect(page).toContain("tools/list 1 (4 tools hidden)");
    expect(/data-recent="(\d+):allow:0 (\d+):deny:0 (\d+):list:4"/.test(page)).toBe(true);
    const onlyEcho = liveBody(feed, new URLSearchParams({ tool: "echo" })).text;
    expect(onlyEcho).toContain("tools/list 0 (0 tools hidden)");
    expect(onlyEcho).toContain(">allow 1<");
  });

  it("shows the arguments' digest in a code element holding the whole value, with it as the title", () => {
    const feed = new LiveFeed();
    feed.write({ ...call("allow", 0), time: new Date().toISOString() });
    const page = liveBody(feed, new URLSearchParams()).text;
    expect(page).toContain(
      `<span class="digest"><code title="${"a".repeat(64)}">${"a".repeat(64)}</code></span>`,
    );
  });
});
