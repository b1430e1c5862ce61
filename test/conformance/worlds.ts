// The worlds the scenarios run in: a directory server-filesystem may reach entirely (its root), of which the
// policies' scope is only `workspace`; and server-everything with its listed tools, for pins.
import { randomUUID } from "node:crypto";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pinForTool } from "../../src/engine/pins/exactHash.js";
import { connect, EVERYTHING_SERVER, FILESYSTEM_SERVER, NODE, tempDir } from "../e2e/helpers.js";
import { signed, TEST_ED25519_PUBLIC_PEM } from "../support/approvalKeys.js";

export interface FsWorld {
  root: string;
  workspace: string;
  /** [NODE, FILESYSTEM_SERVER, root]. */
  server: string[];
}

/**
 * root/outside.txt, root/workspace_evil/secret.txt (a sibling sharing the prefix), root/elsewhere/secret.txt
 * reached by the symbolic link workspace/link, and workspace/notes.txt ("inside\n").
 */
export function fsWorld(): FsWorld {
  const root = tempDir("tg-conf-fs-");
  const workspace = join(root, "workspace");
  mkdirSync(join(workspace, "docs"), { recursive: true });
  mkdirSync(join(root, "workspace_evil"));
  mkdirSync(join(root, "elsewhere"));
  writeFileSync(join(workspace, "notes.txt"), "inside\n");
  writeFileSync(join(root, "outside.txt"), "outside\n");
  writeFileSync(join(root, "workspace_evil", "secret.txt"), "evil\n");
  writeFileSync(join(root, "elsewhere", "secret.txt"), "elsewhere\n");
  symlinkSync(join(root, "elsewhere"), join(workspace, "link"));
  return { root, workspace, server: [NODE, FILESYSTEM_SERVER, root] };
}

export const EVERYTHING = [NODE, EVERYTHING_SERVER];

export type ListedTool = { name: string; description?: string; inputSchema: unknown };

/** The tools the bare server lists, in its order. */
export async function bareTools(server: string[]): Promise<ListedTool[]> {
  const bare = await connect({ command: server[0]!, args: server.slice(1) });
  try {
    return (await bare.client.listTools()).tools;
  } finally {
    await bare.close();
  }
}

/** `tool_pins` entries for `tools` of server `serverId`; `spoil` gets a wrong schema_hash. */
export function pinsYaml(serverId: string, tools: ListedTool[], spoil?: string): string {
  return tools
    .map((t) => {
      const pin = pinForTool(t, undefined, serverId);
      const schema = t.name === spoil ? "0".repeat(64) : pin.schema_hash;
      return `  ${JSON.stringify(`${serverId}/${t.name}`)}:\n    server_id: ${serverId}\n    tool_name: ${JSON.stringify(t.name)}\n    schema_hash: "${schema}"\n    meta_hash: "${pin.meta_hash}"\n`;
    })
    .join("");
}

/** A current approval artifact for `tool` (and `resource`), with `over` in place of its fields. */
export function artifact(tool: string, resource?: string, over: Record<string, unknown> = {}) {
  return {
    approval_id: `apr-${tool}-${resource?.length ?? 0}`,
    approver: "alice@example.com",
    issued_at: new Date(Date.now() - 60_000).toISOString(),
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    bound_tool: tool,
    ...(resource === undefined ? {} : { bound_resource: resource }),
    ...over,
  };
}

/** The Ed25519 public key the artifact scenarios' toolgate trusts (`--approval-key`), written once. */
export function approvalKeyFile(): string {
  approvalKeyPath ??= join(tempDir("tg-conf-keys-"), "approver.pub.pem");
  writeFileSync(approvalKeyPath, TEST_ED25519_PUBLIC_PEM);
  return approvalKeyPath;
}
let approvalKeyPath: string | undefined;

/** A current artifact like `artifact`, with its own id, signed with the test Ed25519 key. */
export function signedArtifact(tool: string, resource?: string, over: Record<string, unknown> = {}) {
  return signed(artifact(tool, resource, { approval_id: randomUUID(), ...over }), "ed25519");
}
