/**
 * `--log-format text|json` (or `$TOOLGATE_LOG_FORMAT`), read from the raw arguments before commander runs:
 * errors raised before a command's action (a bad flag, a bad value) must come out in the format asked for.
 * No commander here, so `toolgate --version` stays cheap.
 */
export type LogFormat = "text" | "json";

export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

export const LOG_FORMAT_ENV = "TOOLGATE_LOG_FORMAT";

/** The format the command line asks for: the last `--log-format` given, else the environment, else text. */
export function requestedLogFormat(argv: readonly string[], env: NodeJS.ProcessEnv): LogFormat {
  let asked: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // Everything after `--` is the wrapped server's command line, not ours.
    if (arg === "--") break;
    if (arg === "--log-format") asked = argv[i + 1];
    else if (arg.startsWith("--log-format=")) asked = arg.slice("--log-format=".length);
  }
  asked ??= env[LOG_FORMAT_ENV];
  // An unknown value is refused by the option itself (a usage error); until then, text.
  return asked === "json" ? "json" : "text";
}
