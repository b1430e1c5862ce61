// Bundles the CLI and the library so `toolgate` starts without resolving hundreds of modules.
import { build } from "esbuild";

const shared = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  // Bundled CommonJS dependencies (ajv) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __tgCreateRequire } from 'node:module'; const require = __tgCreateRequire(import.meta.url);" },
};

await Promise.all([
  build({ ...shared, entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.js" }),
  build({ ...shared, entryPoints: ["src/index.ts"], outfile: "dist/index.js" }),
]);
