// The official SDKs' stdio clients start servers with a short list of inherited variables (PATH, HOME …).
// A full test run sets TOOLGATE_LIST_WAIT (vitest.config.ts) so that a serve started by such a client waits
// for its slow-starting servers before a first tools/list; this adds it to both SDK lines' lists.
import { DEFAULT_INHERITED_ENV_VARS as V1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { DEFAULT_INHERITED_ENV_VARS as V2 } from "@modelcontextprotocol/client/stdio";

for (const list of [V1, V2] as string[][]) {
  if (!list.includes("TOOLGATE_LIST_WAIT")) list.push("TOOLGATE_LIST_WAIT");
}
