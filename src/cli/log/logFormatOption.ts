import { Option, type Command } from "commander";
import { LOG_FORMAT_ENV, LOG_FORMATS, type LogFormat } from "./logFormat.js";
import { setLogFormat } from "./stderrLog.js";

/** `--log-format text|json` (else `$TOOLGATE_LOG_FORMAT`), on the commands that run as a service. */
export function addLogFormatOption<C extends Command>(command: C): C {
  command.addOption(
    new Option(
      "--log-format <format>",
      "stderr as text lines, or json: one object a line with time, level, code, message (and principal, server, tool)",
    )
      .choices(LOG_FORMATS)
      .default("text")
      .env(LOG_FORMAT_ENV),
  );
  return command;
}

/** The format the parsed option settled on (main.ts set it from the raw arguments already; this agrees). */
export function applyLogFormat(flags: { logFormat?: string }): void {
  setLogFormat((flags.logFormat ?? "text") as LogFormat);
}
