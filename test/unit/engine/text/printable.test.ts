import { describe, expect, it } from "vitest";
import { printable, printableLines } from "../../../../src/engine/text/printable.js";

describe("printable", () => {
  it.each([
    ["plain text, ünïcödé ✓", "plain text, ünïcödé ✓"],
    ["a\nb\rc\td", "a\\nb\\rc\\td"],
    ["\u001b[2Jclear", "\\u001b[2Jclear"],
    ["\u0000\u007f\u009b", "\\u0000\\u007f\\u009b"],
    ["abc\u202eexe.txt", "abc\\u202eexe.txt"],
    ["line\u2028sep", "line\\u2028sep"],
  ])("%j → %j", (input, output) => {
    expect(printable(input)).toBe(output);
    expect(printable(input)).toBe(output);
  });

  it("keeps the line breaks of a multi-line text, escaping the rest", () => {
    expect(printableLines("one\u001b\ntwo\r")).toBe("one\\u001b\ntwo\\r");
  });
});
