// A role or skill header is applied as written or refused with the file named: never silently ignored,
// which would leave every tool allowed (a byte-order mark, blank lines first, `...` as the closer).
import { describe, expect, it } from "vitest";
import { parseRoleFile } from "../../../src/config/roleFile.js";
import { parseSkillFile } from "../../../src/config/skillFile.js";

const HEADER = "---\nmcp_tools:\n  github: get_*\n---\n# Reviewer\n";

describe("front matter", () => {
  it.each([
    ["as written", HEADER],
    ["after a byte-order mark", `\uFEFF${HEADER}`],
    ["after blank lines", `\n  \n${HEADER}`],
    ["closed by '...'", "---\nmcp_tools:\n  github: get_*\n...\nbody\n"],
    ["with CRLF line ends", HEADER.replace(/\n/g, "\r\n")],
  ])("is applied %s", (_, text) => {
    const { role, diagnostics } = parseRoleFile("reviewer", "roles/reviewer.md", text);
    expect(diagnostics).toEqual([]);
    expect(role.mcpTools?.map((e) => [e.key, e.patterns?.map((p) => p.source)])).toEqual([
      ["github", ["get_*"]],
    ]);
  });

  it("positions point at the file's own lines after blank lines", () => {
    const { diagnostics } = parseRoleFile("r", "roles/r.md", "\n\n---\nbogus: 1\n---\n");
    expect(diagnostics[0]).toMatchObject({ code: "W_UNKNOWN_FIELD", line: 4 });
  });

  it("one that is never closed is an error naming the file and the line, in roles and skills", () => {
    for (const [parse, file] of [
      [(t: string) => parseRoleFile("r", "roles/r.md", t).diagnostics, "roles/r.md"],
      [(t: string) => parseSkillFile("s", "skills/s/SKILL.md", t).diagnostics, "skills/s/SKILL.md"],
    ] as const) {
      expect(parse("\uFEFF---\nmcp_tools:\n  github: []\n# no closer\n")).toEqual([
        expect.objectContaining({ severity: "error", code: "E_FRONT_MATTER", file, line: 1 }),
      ]);
    }
  });

  it("a file without a header has no settings", () => {
    expect(parseRoleFile("r", "roles/r.md", "# Just prose\n---\nnot a header\n---\n")).toMatchObject({
      role: { mcpTools: null, enabledMcpServers: null },
      diagnostics: [],
    });
  });
});
