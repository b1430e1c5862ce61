import { describe, expect, it } from "vitest";
import { readStateUrl, STATE_URL_HINT, stateUrlForms } from "../../../../src/engine/model/stateUrl.js";
import { parseConfigYaml } from "../../../../src/config/configYaml.js";

describe("readStateUrl", () => {
  it.each([
    ["memory", { scheme: "memory", where: "memory" }],
    ["redis://10.0.0.9:6379", { scheme: "redis", where: "redis://10.0.0.9:6379" }],
    ["redis://10.0.0.9:6379/", { scheme: "redis", where: "redis://10.0.0.9:6379" }],
    ["redis://user:pw@10.0.0.9:6379/2", { scheme: "redis", where: "redis://10.0.0.9:6379/2" }],
    ["rediss://:pw@cache.internal/0", { scheme: "rediss", where: "rediss://cache.internal/0" }],
    ["REDISS://cache.internal", { scheme: "rediss", where: "rediss://cache.internal" }],
    ["redis://[::1]:6379", { scheme: "redis", where: "redis://[::1]:6379" }],
  ])("%s names a store", (text, expected) => {
    expect(readStateUrl(text)).toEqual({ ...expected, url: text });
  });

  it.each([
    ["Memory", "'Memory' is not a URL"],
    ["10.0.0.9:6379", "'10.0.0.9:6379' is not a URL"],
    ["localhost:6379", "'localhost:' is not a scheme toolgate keeps state in"],
    ["postgres://db/x", "'postgres:' is not a scheme toolgate keeps state in"],
    ["redis://", "'redis://' names no host"],
    ["redis://h:6379/cache", "the database 'cache' in 'redis://h:6379/cache' is not a number"],
    ["redis://:pw@h:6379/a/b", "the database 'a/b' in 'redis://h:6379/a/b' is not a number"],
    [
      "redis://h:6379?keyPrefix=x",
      "'redis://h:6379' has a query or fragment (?keyPrefix=x), which toolgate does not read",
    ],
    ["redis://user:pw@h:port", "'redis://…@h:port' is not a URL"],
  ])("%s: %s", (text, problem) => {
    expect(readStateUrl(text)).toEqual({ problem });
  });

  it("no problem repeats a password", () => {
    for (const text of [
      "redis://u:s3cret@h/x",
      "redis://u:s3cret@h:p",
      "rediss://u:s3cret@/0",
      "redis://:s3cret@h?a=1",
    ]) {
      const read = readStateUrl(text);
      expect("problem" in read && read.problem).not.toContain("s3cret");
    }
  });

  it("the forms name every scheme", () => {
    expect(stateUrlForms()).toBe(
      "memory, redis://[USER:PASSWORD@]HOST:PORT[/DB] or rediss://[USER:PASSWORD@]HOST:PORT[/DB] (Redis over TLS)",
    );
  });
});

describe("config.yaml state:", () => {
  it("a store it names is kept with where it was written", () => {
    const r = parseConfigYaml("/etc/toolgate/config.yaml", "state: rediss://cache.internal:6380/1\n");
    expect(r.diagnostics).toEqual([]);
    expect(r.config.state).toMatchObject({
      url: "rediss://cache.internal:6380/1",
      at: { line: 1, column: 8 },
    });
  });

  it("a URL that names none is an error at its file:line, with the forms that would be right", () => {
    const r = parseConfigYaml(
      "/etc/toolgate/config.yaml",
      "enabled_mcp_servers: all\nstate: redis://h/cache\n",
    );
    expect(r.config.state).toBeNull();
    expect(
      r.diagnostics.map((d) => [d.severity, d.code, d.file, d.line, d.column, d.message, d.hint]),
    ).toEqual([
      [
        "error",
        "E_STATE_URL",
        "/etc/toolgate/config.yaml",
        2,
        8,
        `'state' must be ${stateUrlForms()}, but the database 'cache' in 'redis://h/cache' is not a number`,
        STATE_URL_HINT,
      ],
    ]);
  });

  it("a value that is not a string is a type error; an empty one is memory", () => {
    const map = parseConfigYaml("/etc/toolgate/config.yaml", "state:\n  url: redis://h\n");
    expect(map.config.state).toBeNull();
    expect(map.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ["E_FIELD_TYPE", 2, `'state' must be ${stateUrlForms()}, but this is a map`],
    ]);
    const empty = parseConfigYaml("/etc/toolgate/config.yaml", "state:\n");
    expect([empty.config.state, empty.diagnostics]).toEqual([null, []]);
  });
});
