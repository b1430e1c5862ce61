import { join } from "node:path";

/** The MCP hosts `toolgate install` knows, by the name given on the command line. */
export const CLIENT_IDS = ["claude-code", "claude-desktop", "cursor", "vscode"] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export function isClientId(value: string): value is ClientId {
  return (CLIENT_IDS as readonly string[]).includes(value);
}

export interface ClientInfo {
  id: ClientId;
  /** As people call it, for messages. */
  title: string;
  /** What to run or open to create the file when there is none yet. */
  createHint: string;
}

export const CLIENTS: Record<ClientId, ClientInfo> = {
  "claude-code": {
    id: "claude-code",
    title: "Claude Code",
    createHint: "add a server first (claude mcp add NAME -- COMMAND ARGS…), or give --config FILE",
  },
  "claude-desktop": {
    id: "claude-desktop",
    title: "Claude Desktop",
    createHint: "add a server in Claude Desktop (Settings → Developer → Edit Config), or give --config FILE",
  },
  cursor: {
    id: "cursor",
    title: "Cursor",
    createHint: "add a server in Cursor (Settings → MCP), or give --config FILE",
  },
  vscode: {
    id: "vscode",
    title: "VS Code",
    createHint: "run 'MCP: Open User Configuration' in VS Code and add a server, or give --config FILE",
  },
};

export interface Where {
  env: NodeJS.ProcessEnv;
  home: string;
  platform: NodeJS.Platform;
}

/**
 * The user-level configuration file each client reads its stdio servers from, where the client itself
 * puts it on this platform. Project files (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`) are
 * shared with a team and would carry this machine's paths, so they are only rewritten when named with
 * `--config`.
 */
export function defaultConfigFile(client: ClientId, where: Where): string {
  const { env, home, platform } = where;
  const appData = env["APPDATA"] ?? join(home, "AppData", "Roaming");
  const xdg =
    env["XDG_CONFIG_HOME"] !== undefined && env["XDG_CONFIG_HOME"] !== ""
      ? env["XDG_CONFIG_HOME"]
      : join(home, ".config");
  switch (client) {
    case "claude-code": {
      // Claude Code keeps its servers (user scope, and each project's local scope) in one state file.
      const dir = env["CLAUDE_CONFIG_DIR"];
      return join(dir !== undefined && dir !== "" ? dir : home, ".claude.json");
    }
    case "claude-desktop":
      if (platform === "darwin")
        return join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
      if (platform === "win32") return join(appData, "Claude", "claude_desktop_config.json");
      return join(xdg, "Claude", "claude_desktop_config.json");
    case "cursor":
      return join(home, ".cursor", "mcp.json");
    case "vscode":
      if (platform === "darwin")
        return join(home, "Library", "Application Support", "Code", "User", "mcp.json");
      if (platform === "win32") return join(appData, "Code", "User", "mcp.json");
      return join(xdg, "Code", "User", "mcp.json");
  }
}
