/**
 * What a transport hands the proxy for each line it read. Transports only cut the byte stream into frames;
 * whether a frame is acceptable is the proxy's call, so a frame that was too long or not UTF-8 still
 * arrives here (as a marker) and gets answered.
 */
export type InboundFrame =
  | { kind: "text"; text: string }
  /** A line longer than the frame bound; its bytes were discarded up to the next newline. */
  | { kind: "oversize"; limitBytes: number }
  /** A line that is not valid UTF-8 (so not JSON text, RFC 8259 §8.1). */
  | { kind: "invalid-utf8" };

export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;
