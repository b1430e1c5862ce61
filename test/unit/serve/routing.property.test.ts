import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { loadPolicyText } from "../../../src/config/policyLoader.js";
import { compilePolicy } from "../../../src/engine/policy/compile.js";
import type { ToolGate } from "../../../src/engine/model/gate.js";
import { withWhitelistLayers } from "../../../src/engine/policy/layeredGate.js";
import { compileLayerPattern, type Layer } from "../../../src/engine/policy/layers.js";
import { allowAllGate, createPolicyGate } from "../../../src/engine/policy/policyGate.js";
import { GatewaySession } from "../../../src/serve/gatewaySession.js";
import type { ServeMode } from "../../../src/serve/serveMode.js";
import { exposedName } from "../../../src/serve/naming.js";
import { DEFAULT_BACKOFF } from "../../../src/upstream/upstreamLink.js";
import { fakeConnect, stdioConfig, type FakeCatalogs } from "./fakeUpstream.js";
import { linkedPair } from "./inMemory.js";

const SERVERS = ["alpha", "beta", "gamma"];
const toolName = fc.stringMatching(/^[a-z][a-z_]{0,5}$/);
/** Whitelist globs and policy wildcards over the same small alphabet, so they often match something. */
const pattern = fc.oneof(
  toolName,
  toolName.map((n) => `${n.slice(0, 2)}*`),
  fc.constant("*"),
  fc.constant("?"),
);

function layer(patterns: string[], i: number): Layer {
  return {
    label: `role (r${i})`,
    level: "role",
    kind: "mcp_tools",
    patterns: patterns.map((source) => compileLayerPattern({ source, at: null, problem: null })),
  };
}

function policyGate(allow: string[] | null, deny: string[]): ToolGate {
  const lines = ['version: "2.0"', "tools:"];
  if (allow !== null) lines.push(`  allow: ${JSON.stringify(allow)}`);
  lines.push(`  deny: ${JSON.stringify(deny)}`);
  const { policy } = loadPolicyText("policy.yaml", lines.join("\n") + "\n");
  if (policy === null) throw new Error("generated policy did not load");
  return createPolicyGate(compilePolicy(policy));
}

const scenario = fc.record({
  mode: fc.constantFrom<ServeMode>("direct", "meta"),
  catalogs: fc.tuple(...SERVERS.map(() => fc.uniqueArray(toolName, { maxLength: 6 }))),
  enabled: fc.subarray(SERVERS, { minLength: 1 }),
  layers: fc.tuple(...SERVERS.map(() => fc.array(fc.array(pattern, { maxLength: 3 }), { maxLength: 2 }))),
  policy: fc.option(
    fc.record({
      allow: fc.option(fc.array(pattern, { maxLength: 3 }), { nil: null }),
      deny: fc.array(pattern, { maxLength: 2 }),
    }),
    { nil: null },
  ),
  extraNames: fc.array(toolName, { maxLength: 4 }),
});

type Text = {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
  structuredContent?: unknown;
};

describe("serve: what the client was not shown is refused without reaching a server (property)", () => {
  it("holds for generated catalogs, layers and policies, in both modes", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const catalogs: FakeCatalogs = { tools: {}, executed: [] };
        SERVERS.forEach((name, i) => (catalogs.tools[name] = s.catalogs[i]!));
        const policy = s.policy === null ? allowAllGate() : policyGate(s.policy.allow, s.policy.deny);
        const gates = new Map<string, ToolGate>();
        SERVERS.forEach((name, i) => gates.set(name, withWhitelistLayers(s.layers[i]!.map(layer), policy)));
        const session = new GatewaySession({
          mode: s.mode,
          context: {
            client: "test",
            selection: { skills: [] },
            servers: s.enabled.map(stdioConfig),
            gates,
            policy,
          },
          sessionId: "prop",
          audit: null,
          connect: fakeConnect(catalogs),
          upstreamTimeoutMs: 5000,
          requestTimeoutMs: 5000,
          backoff: DEFAULT_BACKOFF,
          log: () => {},
        });
        const [clientSide, serverSide] = linkedPair();
        await session.connect(serverSide);
        const client = new Client({ name: "prop", version: "1" });
        await client.connect(clientSide);
        try {
          // What the client is shown, per server: the list (direct) or an all-matching search (meta).
          const shown = new Set<string>();
          if (s.mode === "direct") {
            for (const t of (await client.listTools()).tools) shown.add(t.name);
          } else {
            for (const server of s.enabled) {
              const r = (await client.callTool({
                name: `mcp_search_${server}`,
                arguments: { query: "", top_k: 20 },
              })) as Text;
              for (const hit of (r.structuredContent as { tools: Array<{ name: string }> }).tools) {
                shown.add(exposedName(server, hit.name));
              }
            }
          }
          const candidates = new Set<string>();
          for (const server of SERVERS) {
            for (const tool of [...catalogs.tools[server]!, ...s.extraNames])
              candidates.add(exposedName(server, tool));
          }
          for (const exposed of candidates) {
            const [server, tool] = [
              exposed.slice(0, exposed.indexOf("__")),
              exposed.slice(exposed.indexOf("__") + 2),
            ];
            const before = catalogs.executed.length;
            let answer: Text;
            if (s.mode === "direct") {
              answer = (await client.callTool({ name: exposed, arguments: {} })) as Text;
            } else {
              if (!s.enabled.includes(server)) continue;
              answer = (await client.callTool({
                name: `mcp_invoke_${server}`,
                arguments: { tool, arguments: {} },
              })) as Text;
              const described = (await client.callTool({
                name: `mcp_describe_${server}`,
                arguments: { tool },
              })) as Text;
              expect(described.isError === true).toBe(!shown.has(exposed));
            }
            if (shown.has(exposed)) {
              expect(answer).toEqual({ content: [{ type: "text", text: `ran ${tool}` }] });
              expect(catalogs.executed.slice(before)).toEqual([`${server}:${tool}`]);
            } else {
              const text =
                s.mode === "direct"
                  ? `MCP error -32602: Tool ${exposed} not found`
                  : `${tool} not found in ${server} MCP server catalog`;
              expect(answer).toEqual({ content: [{ type: "text", text }], isError: true });
              expect(catalogs.executed.length).toBe(before);
            }
          }
          // Nothing ever reached a server that the client was not shown.
          for (const call of catalogs.executed) expect(shown.has(call.replace(":", "__"))).toBe(true);
        } finally {
          await client.close();
          await session.close();
        }
      }),
      { numRuns: 80 },
    );
  });
});
