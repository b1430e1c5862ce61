/**
 * The name a wrapped server gives itself (serverInfo.name, in its initialize or server/discover answer)
 * decides nothing: pins are bound to the server wrap was started for (--server, --label, else the only
 * server the pins name). A server that renames itself is still reported, once per new name
 * (W_SERVER_NAME_CHANGED), so an operator sees a rename that pins no longer have to catch.
 */
export class ServerNameWatch {
  /** The name the server is expected to give: the pins' own server_id when that is what binds them. */
  private expected: string | undefined;
  /** Where `expected` comes from, for the report. */
  private from: string;
  private readonly reported = new Set<string>();

  /**
   * `pinsServer`: the server_id the pins are bound to. `fromPins`: it is the name the pins record (no
   * --server or --label), so a server giving another name is not the one its pins describe by name.
   */
  constructor(
    private readonly pinsServer: string | undefined,
    fromPins: boolean,
    private readonly log: (line: string) => void,
  ) {
    this.expected = fromPins ? pinsServer : undefined;
    this.from = "as its tool_pins name it";
  }

  /** Called with the name the server gives now (undefined: none given). */
  note(name: string | undefined): void {
    if (name === undefined) return;
    if (this.expected === undefined) {
      // The first name it gives is what a later answer is compared with.
      this.expected = name;
      this.from = "as it did before";
      return;
    }
    if (name === this.expected || this.reported.has(name)) return;
    this.reported.add(name);
    const bound =
      this.pinsServer === undefined
        ? "its tool_pins name no server and still apply by tool name"
        : `its tool_pins stay those of server_id '${this.pinsServer}'`;
    this.log(
      `warning W_SERVER_NAME_CHANGED: the server calls itself '${name}', not '${this.expected}' ${this.from}; ` +
        `${bound} (the name a server gives itself never decides which pins apply, so a drifted tool is still ` +
        "withheld; --label names the server and silences this)",
    );
  }
}
