/**
 * What a log line is about, for the layers that print through a `log(line)` callback and know more than the
 * text says: the code of the line and the server, tool or principal it concerns. `--log-format json` puts
 * them in their own keys; the text form prints the line alone.
 */
export interface LogFields {
  /** A code of engine/model/codes.ts (docs/codes.md). */
  code?: string;
  server?: string;
  tool?: string;
  principal?: string;
}
