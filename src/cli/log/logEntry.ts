import type { LogFields } from "../../engine/model/logFields.js";

export type LogLevel = "error" | "warning" | "info";

/** One line of `--log-format json`: its code, level and message, and what it is about. */
export interface LogEntry extends LogFields {
  level: LogLevel;
  code: string;
  message: string;
  /** A diagnostic's place: the file, line, column and field path it is about. */
  file?: string;
  line?: number;
  column?: number;
  field?: string;
  hint?: string;
}
