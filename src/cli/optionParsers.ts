import { InvalidArgumentError, type Command } from "commander";

/** A repeatable option's values, in the order given. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A whole number of at least `min`; anything else is a usage error naming what was expected. */
export function integer(min: number, what: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected ${what}`);
    }
    return n;
  };
}

/** The seconds `--startup-timeout` gives a server to answer its first request, by default. */
export const DEFAULT_STARTUP_TIMEOUT_S = 60;

/** `--startup-timeout <seconds>`: how long a server may take to start (its mcp.json `startup_timeout` wins). */
export function addStartupTimeoutOption<C extends Command>(command: C): C {
  command.option(
    "--startup-timeout <seconds>",
    `how long a server may take to answer its first request (an npx cold start takes 20 s); a server's "startup_timeout" in mcp.json wins`,
    integer(1, "a number of seconds"),
    DEFAULT_STARTUP_TIMEOUT_S,
  );
  return command;
}

/** `--audit-args` of wrap and serve: what replay needs, off by default (arguments can be personal data). */
export const AUDIT_ARGS_HELP =
  "with --audit-log: record each call's arguments in its event (after the redaction: tools under redact_args as their contract says, secret-looking members masked for the rest), so `toolgate replay` can re-decide the calls";

/** `--self-test <file>` of wrap and serve: the start-up self-test (wins over config.yaml's `tests:`). */
export function addSelfTestOption<C extends Command>(command: C): C {
  command.option(
    "--self-test <file>",
    "a policy test file whose cases must pass at start and before each reload is applied (else the start or the reload is refused); wins over config.yaml's tests:",
  );
  return command;
}
