import type { McpServerConfig } from "../engine/model/mcpServers.js";
import { ToolgateError } from "../engine/errors.js";
import type { SecretScrubber } from "./serverSecrets.js";
import { describeTarget } from "./serverTarget.js";
import { spawnFailure } from "./spawnFailure.js";

/**
 * What a server that would not connect is told as: the reason in words (a spawn failure says where the
 * command was looked for), with the tail of what its stderr said, since a child that died has usually said
 * why there. Kept apart so every message about a failed server reads the same.
 */

const STDERR_IN_MESSAGES = 2000;

export function reasonOf(error: unknown, command?: string, env?: NodeJS.ProcessEnv): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    // spawn failures say `spawn foo ENOENT`; say what it means, and where it was looked for.
    if ((code === "ENOENT" || code === "EACCES") && /spawn/.test(error.message) && command !== undefined) {
      return spawnFailure(command, error, env ?? process.env);
    }
    return error.message;
  }
  return String(error);
}

export function withStderr(reason: string, stderr: string): string {
  const tail = stderr.trim();
  if (tail === "") return reason;
  const shown = tail.length > STDERR_IN_MESSAGES ? "…" + tail.slice(-STDERR_IN_MESSAGES) : tail;
  return `${reason}; the server's stderr said:\n${shown}`;
}

/** One message for a server that did not come up in time, naming the setting that decides it. */
export function slowStart(
  server: McpServerConfig,
  startupMs: number,
  stderr: string,
  secrets: SecretScrubber,
): ToolgateError {
  const seconds = Math.round(startupMs / 100) / 10;
  return new ToolgateError(
    "E_UPSTREAM_START",
    secrets.text(
      withStderr(
        `MCP server '${server.name}' (${server.transport}: ${describeTarget(server)}) did not answer within ${seconds} s (startup_timeout); if it is only slow, give it longer: "startup_timeout": <seconds> in its mcp.json entry, or --startup-timeout <seconds>`,
        stderr,
      ),
    ),
    server.transport === "stdio"
      ? `if it never answers, check "command" and "args" of '${server.name}' in mcp.json`
      : `if it never answers, check that it runs at "url" of '${server.name}'`,
  );
}
