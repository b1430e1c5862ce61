import { describe, expect, it } from "vitest";
import { searchTools, words } from "../../../src/serve/search.js";

const catalog = [
  { name: "read_file", description: "Read the complete contents of a file from the file system." },
  { name: "read_multiple_files", description: "Read several files at once." },
  { name: "write_file", description: "Create a new file or overwrite an existing one." },
  { name: "list_directory", description: "List the files and directories in a path." },
  { name: "getFileInfo", description: "Metadata about a file or directory." },
  { name: "echo", description: "Echoes back the input" },
];

describe("words", () => {
  it.each<[string, string[]]>([
    ["read_file", ["read", "file"]],
    ["getFileInfo", ["get", "file", "info"]],
    ["HTTPServer-list", ["http", "server", "list"]],
    ["  Read, the FILE! ", ["read", "the", "file"]],
    ["", []],
  ])("%j → %j", (text, expected) => {
    expect(words(text)).toEqual(expected);
  });
});

describe("searchTools", () => {
  it("ranks name words above description words, ties by name", () => {
    expect(searchTools(catalog, "file", 10).map((h) => [h.name, h.score])).toEqual([
      ["getFileInfo", 8],
      ["read_file", 8],
      ["write_file", 8],
      ["read_multiple_files", 5],
      ["list_directory", 1],
    ]);
  });

  it("adds up several words and leaves out tools that match none", () => {
    const hits = searchTools(catalog, "read file", 10);
    expect(hits[0]).toEqual({
      name: "read_file",
      description: "Read the complete contents of a file from the file system.",
      score: 16,
    });
    expect(hits.map((h) => h.name)).not.toContain("echo");
  });

  it("gives an exact whole-name match a bonus", () => {
    expect(searchTools(catalog, "echo", 5)).toEqual([
      { name: "echo", description: "Echoes back the input", score: 17 },
    ]);
  });

  it("honours top_k", () => {
    expect(searchTools(catalog, "file", 2).map((h) => h.name)).toEqual(["getFileInfo", "read_file"]);
  });

  it("returns every tool in name order for a query without words", () => {
    expect(searchTools(catalog, "  ", 3).map((h) => h.name)).toEqual([
      "echo",
      "getFileInfo",
      "list_directory",
    ]);
  });

  it("is deterministic whatever the catalog order", () => {
    const reversed = [...catalog].reverse();
    expect(searchTools(reversed, "file directory", 20)).toEqual(searchTools(catalog, "file directory", 20));
  });
});
