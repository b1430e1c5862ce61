// The dashboard's request checks: which Host values and which POST origins are its own, constant-time
// secret comparison, and the session store that holds each session's CSRF token.
import { describe, expect, it } from "vitest";
import {
  acceptedHosts,
  hostAccepted,
  isOwnOrigin,
  parseCookies,
  parseForm,
  sameOriginPost,
  secretsEqual,
} from "../../../src/dashboard/guard.js";
import { csrfValid, SessionStore } from "../../../src/dashboard/sessions.js";
import { localPrincipal } from "../../../src/engine/model/principal.js";

const hosts = acceptedHosts("127.0.0.1", 4747);

describe("Host", () => {
  it("accepts the bound address and, on loopback, the loopback names, with the port", () => {
    for (const h of ["127.0.0.1:4747", "localhost:4747", "LOCALHOST:4747", "[::1]:4747"]) {
      expect(hostAccepted(h, hosts)).toBe(true);
    }
  });

  it("refuses other names, other ports, no port, and no Host at all", () => {
    for (const h of ["evil.example:4747", "127.0.0.1:80", "127.0.0.1", "127.0.0.1:47470", "", undefined]) {
      expect(hostAccepted(h, hosts)).toBe(false);
    }
  });

  it("a non-loopback address accepts only itself", () => {
    const lan = acceptedHosts("192.168.1.20", 8000);
    expect(hostAccepted("192.168.1.20:8000", lan)).toBe(true);
    expect(hostAccepted("localhost:8000", lan)).toBe(false);
    expect(hostAccepted("[::1]:9000", acceptedHosts("::1", 9000))).toBe(true);
  });
});

describe("same-origin POST", () => {
  it("accepts an Origin naming the dashboard", () => {
    expect(sameOriginPost({ origin: "http://127.0.0.1:4747" }, hosts)).toBe(true);
    expect(sameOriginPost({ origin: "http://localhost:4747/" }, hosts)).toBe(true);
  });

  it("refuses another origin, even one of the same site (another port), and `null`", () => {
    for (const origin of [
      "http://127.0.0.1:4748",
      "http://evil.example",
      "https://127.0.0.1:4747",
      "null",
      "http://user@127.0.0.1:4747",
      "http://127.0.0.1:4747/path",
      "",
    ]) {
      expect(sameOriginPost({ origin }, hosts)).toBe(false);
    }
  });

  it("an Origin decides even when the Referer would pass", () => {
    expect(
      sameOriginPost({ origin: "http://evil.example", referer: "http://127.0.0.1:4747/ui/" }, hosts),
    ).toBe(false);
  });

  it("without Origin, the Referer's origin decides", () => {
    expect(sameOriginPost({ referer: "http://127.0.0.1:4747/ui/?role=a" }, hosts)).toBe(true);
    expect(sameOriginPost({ referer: "http://evil.example/ui/" }, hosts)).toBe(false);
    expect(sameOriginPost({ referer: "http://u:p@127.0.0.1:4747/ui/" }, hosts)).toBe(false);
    expect(sameOriginPost({ referer: "not a url" }, hosts)).toBe(false);
  });

  it("with neither header, refuses", () => {
    expect(sameOriginPost({}, hosts)).toBe(false);
  });

  it("isOwnOrigin needs plain http and an accepted host", () => {
    expect(isOwnOrigin("http://[::1]:4747", hosts)).toBe(true);
    expect(isOwnOrigin("ftp://127.0.0.1:4747", hosts)).toBe(false);
  });
});

describe("secretsEqual", () => {
  it("is true only for the same text, whatever the lengths", () => {
    expect(secretsEqual("abcdefghijklmnop", "abcdefghijklmnop")).toBe(true);
    expect(secretsEqual("abcdefghijklmnoq", "abcdefghijklmnop")).toBe(false);
    expect(secretsEqual("abc", "abcdefghijklmnop")).toBe(false);
    expect(secretsEqual("", "abcdefghijklmnop")).toBe(false);
  });
});

describe("parsing", () => {
  it("cookies: the first of a repeated name wins", () => {
    const c = parseCookies("a=1; tg_dashboard=first; tg_dashboard=second; junk; =x");
    expect(c.get("tg_dashboard")).toBe("first");
    expect(c.get("a")).toBe("1");
    expect(parseCookies(undefined).size).toBe(0);
  });

  it("forms: get gives a repeated field's first value, getAll every one", () => {
    const f = parseForm("csrf=one&csrf=two&skill=a&skill=b");
    expect(f.get("csrf")).toBe("one");
    expect(f.getAll("skill")).toEqual(["a", "b"]);
  });
});

const OPERATOR = {
  principal: localPrincipal("operator"),
  rights: { mcp: false, dashboard: "viewer" as const, approves: null },
};

describe("sessions and CSRF tokens", () => {
  it("a session is found by its id, with its own CSRF token", () => {
    const store = new SessionStore();
    const { id, session } = store.create(OPERATOR);
    expect(store.get(id)).toBe(session);
    expect(store.get(id + "x")).toBeNull();
    expect(store.get(undefined)).toBeNull();
    expect(csrfValid(session, session.csrf)).toBe(true);
    expect(csrfValid(session, store.create(OPERATOR).session.csrf)).toBe(false);
    expect(csrfValid(session, "")).toBe(false);
    expect(csrfValid(session, null)).toBe(false);
    expect(csrfValid(session, undefined)).toBe(false);
  });

  it("ends sessions idle too long and sessions too old", () => {
    let now = 0;
    const store = new SessionStore({ max: 10, idleMs: 100, maxAgeMs: 1000 }, () => now);
    const a = store.create(OPERATOR);
    now = 101;
    expect(store.get(a.id)).toBeNull();
    const b = store.create(OPERATOR);
    for (let t = 150; t <= 1200; t += 50) {
      now = t;
      if (t - 101 <= 1000) expect(store.get(b.id)).not.toBeNull();
      else expect(store.get(b.id)).toBeNull();
    }
  });

  it("is bounded: a full store drops the least recently used session", () => {
    const store = new SessionStore({ max: 3, idleMs: 1e9, maxAgeMs: 1e9 });
    const [a, b, c] = [store.create(OPERATOR), store.create(OPERATOR), store.create(OPERATOR)];
    store.get(a.id);
    const d = store.create(OPERATOR);
    expect(store.size).toBe(3);
    expect(store.get(b.id)).toBeNull();
    for (const s of [a, c, d]) expect(store.get(s.id)).not.toBeNull();
  });

  it("sign-out deletes the session and ends what it keeps open (its live stream)", () => {
    const store = new SessionStore();
    const { id, session } = store.create(OPERATOR);
    let ended = 0;
    session.onEnd.add(() => ended++);
    expect(store.live(session)).toBe(true);
    store.delete(id);
    expect(store.get(id)).toBeNull();
    expect(store.live(session)).toBe(false);
    expect(ended).toBe(1);
  });

  it("an expired session ends its streams when a heartbeat asks, without the ask counting as use", () => {
    let now = 0;
    const store = new SessionStore({ max: 10, idleMs: 100, maxAgeMs: 1000 }, () => now);
    const { session } = store.create(OPERATOR);
    let ended = 0;
    session.onEnd.add(() => ended++);
    now = 90;
    expect(store.live(session)).toBe(true);
    now = 150; // 150 - 0 > 100: live() at 90 did not count as use
    expect(store.live(session)).toBe(false);
    expect(ended).toBe(1);
  });
});
