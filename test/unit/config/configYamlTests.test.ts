// config.yaml's `tests:` (the start-up self-test of wrap and serve): a path relative to the directory,
// checked like `policy:` with file, line and field; `--self-test` wins over it.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigYaml } from "../../../src/config/configYaml.js";
import type { ConfigDir } from "../../../src/engine/model/configDir.js";
import { selfTestFile } from "../../../src/cli/selfTest/selfTestRun.js";

describe("config.yaml tests:", () => {
  it("reads the path and where it is written", () => {
    const r = parseConfigYaml("config.yaml", "policy: p.yaml\ntests: checks/p.tests.yaml\n");
    expect(r.diagnostics).toEqual([]);
    expect(r.config.tests).toMatchObject({ path: "checks/p.tests.yaml", at: { line: 2, column: 8 } });
    expect(r.config.policy).toMatchObject({ path: "p.yaml", at: { line: 1 } });
  });

  it("null or left out: no self-test", () => {
    expect(parseConfigYaml("config.yaml", "tests:\n").config.tests).toBeNull();
    expect(parseConfigYaml("config.yaml", "policy: p.yaml\n").config.tests).toBeNull();
  });

  it("anything but a path is an error at its line and field", () => {
    for (const value of ["[a.yaml]", "5", "{file: a.yaml}", '""']) {
      const r = parseConfigYaml("config.yaml", `enabled_mcp_servers: all\ntests: ${value}\n`);
      expect(r.config.tests).toBeNull();
      expect(r.diagnostics).toMatchObject([
        {
          severity: "error",
          code: "E_FIELD_TYPE",
          file: "config.yaml",
          line: 2,
          column: 8,
          path: "tests",
          message: expect.stringMatching(/^'tests' must be the path of the policy test file/),
        },
      ]);
    }
  });

  it("is a known key (no unknown-key warning)", () => {
    expect(parseConfigYaml("config.yaml", "tests: t.yaml\n").diagnostics).toEqual([]);
    expect(parseConfigYaml("config.yaml", "test: t.yaml\n").diagnostics).toMatchObject([
      { severity: "warning" },
    ]);
  });
});

describe("which self-test file", () => {
  const config = (tests: string | null): ConfigDir =>
    ({
      dir: "/etc/toolgate",
      global: {
        tests:
          tests === null
            ? null
            : { path: tests, at: { file: "config.yaml", path: "tests", line: 3, column: 8 } },
      },
    }) as unknown as ConfigDir;

  it("config.yaml's, relative to the directory; an absolute path as written", () => {
    expect(selfTestFile(undefined, config("p.tests.yaml"))).toEqual({
      path: join("/etc/toolgate", "p.tests.yaml"),
      shown: "p.tests.yaml",
      at: { file: "config.yaml", path: "tests", line: 3, column: 8 },
    });
    expect(selfTestFile(undefined, config("/srv/t.yaml"))?.path).toBe("/srv/t.yaml");
  });

  it("--self-test wins; neither: none", () => {
    expect(selfTestFile("mine.yaml", config("p.tests.yaml"))).toEqual({
      path: "mine.yaml",
      shown: "mine.yaml",
    });
    expect(selfTestFile(undefined, config(null))).toBeNull();
    expect(selfTestFile(undefined, null)).toBeNull();
  });
});
