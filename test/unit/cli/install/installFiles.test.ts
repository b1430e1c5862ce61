// How install writes files: whole, through a temporary file created exclusively (O_EXCL) under a random
// name, never through something planted at a name that could be guessed; and a client file that is a
// symbolic link is followed to the file it points to, whose edit leaves the link a link.
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ToolgateError } from "../../../../src/engine/errors.js";
import { TEMP_NAME_BYTES, temporaryName, writeAtomically } from "../../../../src/cli/install/atomicWrite.js";
import { resolveConfigTarget } from "../../../../src/cli/install/configTarget.js";
import {
  commitInstall,
  readRecord,
  recordPaths,
  type InstallRecord,
} from "../../../../src/cli/install/installRecord.js";

function dir(): string {
  return mkdtempSync(join(tmpdir(), "tg-install-write-"));
}

/** A random source that hands out the given byte strings in turn, then fresh random ones. */
function scripted(...first: Buffer[]): { random: (n: number) => Buffer; asked: Buffer[] } {
  const asked: Buffer[] = [];
  return {
    asked,
    random: (n) => {
      const bytes = first.shift() ?? randomBytes(n);
      asked.push(bytes);
      return bytes;
    },
  };
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return error instanceof ToolgateError ? error.code : `not coded: ${(error as Error).message}`;
  }
  return "no error";
}

describe("writeAtomically", () => {
  it("replaces the file whole, keeps its mode, and leaves no temporary file", () => {
    const d = dir();
    const file = join(d, "mcp.json");
    writeFileSync(file, "old");
    chmodSync(file, 0o640);
    writeAtomically(file, "new ✓");
    expect(readFileSync(file, "utf8")).toBe("new ✓");
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(d)).toEqual(["mcp.json"]);
    writeAtomically(join(d, "private.json"), "x", 0o600);
    expect(statSync(join(d, "private.json")).mode & 0o777).toBe(0o600);
  });

  it("names each temporary file with 96 fresh random bits, beside the file", () => {
    const d = dir();
    const file = join(d, "mcp.json");
    const source = scripted();
    writeAtomically(file, "1", 0o644, source.random);
    writeAtomically(file, "2", 0o644, source.random);
    expect(source.asked.map((b) => b.length)).toEqual([TEMP_NAME_BYTES, TEMP_NAME_BYTES]);
    expect(TEMP_NAME_BYTES * 8).toBeGreaterThanOrEqual(96);
    expect(source.asked[0]!.equals(source.asked[1]!)).toBe(false);
    expect(temporaryName(file, source.asked[0]!)).toBe(
      join(d, `.mcp.json.toolgate-${source.asked[0]!.toString("hex")}.tmp`),
    );
  });

  it("never writes through a link or a file already at the temporary name: O_EXCL refuses it, and a fresh name is used", () => {
    const d = dir();
    const file = join(d, "mcp.json");
    writeFileSync(file, "old");
    const victim = join(d, "victim");
    const planted = randomBytes(TEMP_NAME_BYTES);
    const plantedFile = randomBytes(TEMP_NAME_BYTES);
    // A dangling link (a plain open would create the victim) and a regular file (it would be overwritten).
    symlinkSync(victim, temporaryName(file, planted));
    writeFileSync(temporaryName(file, plantedFile), "theirs");
    const source = scripted(planted, plantedFile);
    writeAtomically(file, "new", 0o644, source.random);
    expect(source.asked).toHaveLength(3);
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(existsSync(victim)).toBe(false);
    expect(readlinkSync(temporaryName(file, planted))).toBe(victim);
    expect(readFileSync(temporaryName(file, plantedFile), "utf8")).toBe("theirs");
    expect(lstatSync(file).isFile()).toBe(true);
  });

  it("gives up, bounded and coded, when every name it tries is taken; the file is unchanged", () => {
    const d = dir();
    const file = join(d, "mcp.json");
    writeFileSync(file, "old");
    const planted = randomBytes(TEMP_NAME_BYTES);
    symlinkSync(join(d, "victim"), temporaryName(file, planted));
    const always = () => planted;
    expect(codeOf(() => writeAtomically(file, "new", 0o644, always))).toBe("E_INSTALL_WRITE");
    expect(readFileSync(file, "utf8")).toBe("old");
    expect(existsSync(join(d, "victim"))).toBe(false);
  });

  it("refuses to replace a symbolic link with a regular file", () => {
    const d = dir();
    writeFileSync(join(d, "real.json"), "real");
    symlinkSync("real.json", join(d, "link.json"));
    expect(codeOf(() => writeAtomically(join(d, "link.json"), "new"))).toBe("E_INSTALL_LINK");
    expect(readlinkSync(join(d, "link.json"))).toBe("real.json");
    expect(readFileSync(join(d, "real.json"), "utf8")).toBe("real");
  });

  it("leaves nothing behind when the write fails", () => {
    const d = dir();
    expect(() => writeAtomically(join(d, "missing-dir", "f.json"), "x")).toThrow(/ENOENT/);
    expect(readdirSync(d)).toEqual([]);
  });
});

describe("the client file behind a symbolic link", () => {
  it("a regular file is itself; a link (or a chain of links) is followed to the file it ends at", () => {
    const d = dir();
    mkdirSync(join(d, "dotfiles"));
    writeFileSync(join(d, "dotfiles", "mcp.json"), "{}");
    symlinkSync("dotfiles/mcp.json", join(d, "one.json"));
    symlinkSync("one.json", join(d, "two.json"));
    expect(resolveConfigTarget(join(d, "dotfiles", "mcp.json"))).toEqual({
      given: join(d, "dotfiles", "mcp.json"),
      file: join(d, "dotfiles", "mcp.json"),
      link: false,
    });
    expect(resolveConfigTarget(join(d, "two.json"))).toEqual({
      given: join(d, "two.json"),
      // realpath: the temporary directory may itself sit behind a link (macOS /var).
      file: realpathSync(join(d, "dotfiles", "mcp.json")),
      link: true,
    });
    expect(resolveConfigTarget(join(d, "absent.json"))).toBeNull();
  });

  it("refuses a dangling link, a loop, and a link to something that is not a file, saying which", () => {
    const d = dir();
    symlinkSync("nowhere.json", join(d, "dangling.json"));
    symlinkSync("b.json", join(d, "a.json"));
    symlinkSync("a.json", join(d, "b.json"));
    mkdirSync(join(d, "folder"));
    symlinkSync("folder", join(d, "to-folder.json"));
    const refusal = (name: string) => {
      try {
        resolveConfigTarget(join(d, name));
      } catch (error) {
        return [(error as ToolgateError).code, (error as Error).message];
      }
      return ["no error"];
    };
    expect(refusal("dangling.json")).toEqual([
      "E_INSTALL_LINK",
      `${join(d, "dangling.json")} is a symbolic link to nowhere.json, which does not exist; toolgate edits the file a link points to, and does not replace the link`,
    ]);
    expect(refusal("a.json")[0]).toBe("E_INSTALL_LINK");
    expect(refusal("a.json")[1]).toContain("a loop of links");
    expect(refusal("to-folder.json")[0]).toBe("E_INSTALL_LINK");
    expect(refusal("to-folder.json")[1]).toContain("which is not a regular file");
    expect(refusal("folder")[0]).toBe("E_USAGE");
  });
});

describe("the install record and the file, together", () => {
  function record(file: string, earlierText: string): InstallRecord {
    return {
      version: 1,
      client: "cursor",
      file,
      installedAt: "2026-01-01T00:00:00.000Z",
      originalText: earlierText,
      installedText: "installed",
      entries: [],
    };
  }

  it("writes the record, then the file; the record is private", () => {
    const d = dir();
    const file = join(d, "mcp.json");
    writeFileSync(file, "original");
    const paths = recordPaths(join(d, "home"), "cursor", file);
    commitInstall(paths, record(file, "original"), null, "installed");
    expect(readFileSync(file, "utf8")).toBe("installed");
    expect(readRecord(paths.record)?.installedText).toBe("installed");
    expect(readFileSync(paths.backup, "utf8")).toBe("original");
    expect(statSync(paths.record).mode & 0o777).toBe(0o600);
  });

  it("when the file cannot be written, the record goes back to what it was, and the error is coded", () => {
    const d = dir();
    const file = join(d, "gone", "mcp.json");
    const paths = recordPaths(join(d, "home"), "cursor", file);
    expect(codeOf(() => commitInstall(paths, record(file, "original"), null, "installed"))).toBe(
      "E_INSTALL_WRITE",
    );
    expect(existsSync(paths.record)).toBe(false);
    expect(existsSync(paths.backup)).toBe(false);

    const earlier = { ...record(file, "first"), installedText: "first install" };
    // A second install whose write fails puts the first install's record back as it was.
    mkdirSync(join(d, "gone"));
    commitInstall(paths, earlier, null, "first install");
    const second = { ...record(join(d, "gone2", "f"), "second"), entries: earlier.entries };
    expect(codeOf(() => commitInstall(paths, second, earlier, "y"))).toBe("E_INSTALL_WRITE");
    expect(readRecord(paths.record)).toEqual(earlier);
    expect(readFileSync(paths.backup, "utf8")).toBe("first");
  });

  it("when the record cannot be written, the file is unchanged", () => {
    const d = dir();
    const file = join(d, "mcp.json");
    writeFileSync(file, "original");
    writeFileSync(join(d, "home"), "a file where the toolgate directory should be");
    const paths = recordPaths(join(d, "home"), "cursor", file);
    expect(codeOf(() => commitInstall(paths, record(file, "original"), null, "installed"))).toBe(
      "E_INSTALL_WRITE",
    );
    expect(readFileSync(file, "utf8")).toBe("original");
  });
});
