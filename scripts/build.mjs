// Bundles the CLI, the library, the demo and the benchmarks so each starts without resolving hundreds
// of modules (an SDK server starts in about 450 ms unbundled, 300 ms bundled on this machine).
import { build } from "esbuild";
import { readdirSync, rmSync } from "node:fs";

const shared = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  // The ESM build of a package before its CommonJS one: jsonc-parser's UMD main cannot be bundled.
  mainFields: ["module", "main"],
  logLevel: "warning",
  // Bundled CommonJS dependencies (ajv) call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __tgCreateRequire } from 'node:module'; const require = __tgCreateRequire(import.meta.url);",
  },
};

const scripts = (dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => `${dir}/${f}`);

// Chunk names carry content hashes: without this, every build would leave the previous chunks behind.
rmSync("dist/chunks", { recursive: true, force: true });

await Promise.all([
  // Split: each command is a chunk loaded when it runs (see src/cli/main.ts).
  build({
    ...shared,
    entryPoints: { cli: "src/cli/main.ts" },
    outdir: "dist",
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
  }),
  build({ ...shared, entryPoints: ["src/index.ts"], outfile: "dist/index.js" }),
  build({
    ...shared,
    entryPoints: [...scripts("bench"), ...scripts("examples")],
    outdir: "dist",
    outbase: ".",
  }),
]);
