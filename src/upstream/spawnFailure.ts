/**
 * Why the server did not start, with what to do. Hosts start servers with a small PATH, so a command found
 * in a shell is often not found there: the message says which PATH was searched.
 */
export function spawnFailure(command: string, error: unknown, env: NodeJS.ProcessEnv): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") {
    return (
      `cannot start the server: '${command}' was not found (spawn ENOENT) on PATH=${env.PATH ?? "(unset)"}. ` +
      `MCP hosts start servers with a minimal PATH: give the command's absolute path (\`command -v ${command}\` in a shell shows it)`
    );
  }
  if (code === "EACCES") {
    return `cannot start the server: '${command}' is not executable (spawn EACCES); check its permissions (chmod +x)`;
  }
  return `cannot start the server '${command}': ${error instanceof Error ? error.message : String(error)}`;
}
