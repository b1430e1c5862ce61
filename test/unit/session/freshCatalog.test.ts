import { describe, expect, it } from "vitest";
import { FreshCatalog } from "../../../src/session/freshCatalog.js";

function counter(results: Array<string | Error>) {
  let calls = 0;
  const fetch = async (): Promise<string> => {
    const next = results[Math.min(calls, results.length - 1)]!;
    calls++;
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch, calls: () => calls };
}

describe("FreshCatalog", () => {
  it("has no snapshot until fetched, then the fetched one", async () => {
    const source = counter(["v1"]);
    const catalog = new FreshCatalog(source.fetch, () => {});
    expect(catalog.current()).toEqual({ ok: false, reason: "the catalog has not been fetched yet" });
    await catalog.ensureFresh();
    expect(catalog.current()).toEqual({ ok: true, snapshot: "v1" });
    expect(catalog.fresh).toBe(true);
  });

  it("refetches after list_changed, and concurrent refreshes share one fetch", async () => {
    const source = counter(["v1", "v2"]);
    const seen: string[] = [];
    const catalog = new FreshCatalog(
      source.fetch,
      () => {},
      (s) => seen.push(s),
    );
    await catalog.ensureFresh();
    catalog.markStale();
    expect(catalog.fresh).toBe(false);
    await Promise.all([catalog.refresh(), catalog.refresh(), catalog.ensureFresh()]);
    expect(source.calls()).toBe(2);
    expect(catalog.current()).toEqual({ ok: true, snapshot: "v2" });
    expect(seen).toEqual(["v1", "v2"]);
  });

  it("a stale mark during a fetch makes that fetch not fresh: ensureFresh fetches again", async () => {
    let release: () => void = () => {};
    let n = 0;
    const catalog = new FreshCatalog(
      () =>
        new Promise<string>((resolve) => {
          n++;
          if (n === 1) release = () => resolve("old");
          else resolve("new");
        }),
      () => {},
    );
    const first = catalog.refresh();
    catalog.markStale();
    release();
    await first;
    expect(catalog.fresh).toBe(false);
    await catalog.ensureFresh();
    expect(catalog.current()).toEqual({ ok: true, snapshot: "new" });
  });

  it("a failed fetch leaves no catalog rather than the old one, and says why", async () => {
    const logs: string[] = [];
    const source = counter(["v1", new Error("server gone")]);
    const catalog = new FreshCatalog(source.fetch, (l) => logs.push(l));
    await catalog.ensureFresh();
    catalog.markStale();
    await catalog.ensureFresh();
    expect(catalog.current()).toEqual({
      ok: false,
      reason: "could not fetch the server's tool catalog: server gone",
    });
    expect(logs).toEqual(["could not fetch the server's tool catalog: server gone"]);
  });

  it("a fixed snapshot is never stale and never fetched", async () => {
    const source = counter(["v1"]);
    const catalog = new FreshCatalog(source.fetch, () => {});
    catalog.fix("none");
    catalog.markStale();
    await catalog.ensureFresh();
    expect(catalog.fresh).toBe(true);
    expect(source.calls()).toBe(0);
    expect(catalog.current()).toEqual({ ok: true, snapshot: "none" });
  });

  it("a listener that throws does not lose the snapshot", async () => {
    const logs: string[] = [];
    const catalog = new FreshCatalog(
      counter(["v1"]).fetch,
      (l) => logs.push(l),
      () => {
        throw new Error("boom");
      },
    );
    await catalog.ensureFresh();
    expect(catalog.current()).toEqual({ ok: true, snapshot: "v1" });
    expect(logs).toEqual(["catalog listener failed: boom"]);
  });
});
