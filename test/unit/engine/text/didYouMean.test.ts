// The edit distance and the "did you mean" bound: typos are suggested, unrelated names are not.
import { describe, expect, it } from "vitest";
import { closestName, editDistance, unknownNameHint } from "../../../../src/engine/text/didYouMean.js";

describe("editDistance", () => {
  it("counts inserts, deletes, substitutions, and a swap of neighbours as one", () => {
    expect(editDistance("fs", "fss")).toBe(1);
    expect(editDistance("memroy", "memory")).toBe(1);
    expect(editDistance("nmae", "name")).toBe(1);
    expect(editDistance("gitlab", "github")).toBe(2);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("abc", "abc")).toBe(0);
  });
});

describe("closestName", () => {
  it("suggests a plausible typo, case ignored", () => {
    expect(closestName("fss", ["fs", "memory"])).toBe("fs");
    expect(closestName("FS", ["fs", "memory"])).toBe("fs");
    expect(closestName("githbu", ["fs", "github"])).toBe("github");
  });

  it("suggests nothing for short names a letter apart, or names far from every known one", () => {
    expect(closestName("b", ["a"])).toBeUndefined();
    expect(closestName("db", ["fs"])).toBeUndefined();
    expect(closestName("postgres", ["fs", "memory", "github"])).toBeUndefined();
    expect(closestName("x".repeat(1000), ["x"])).toBeUndefined();
  });
});

describe("unknownNameHint", () => {
  it("the suggestion and the names there are; at most 20 listed", () => {
    expect(unknownNameHint("fss", ["fs", "memory"], "configured servers", "none")).toBe(
      "did you mean 'fs'? (configured servers: fs, memory)",
    );
    expect(unknownNameHint("zzz", [], "configured servers", "none")).toBe("none");
    const many = Array.from({ length: 30 }, (_, i) => `server${i}`);
    expect(unknownNameHint("qqqqqq", many, "configured servers", "none")).toBe(
      `configured servers: ${many.slice(0, 20).join(", ")}, … (30 in all)`,
    );
  });
});
