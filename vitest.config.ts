import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The image test builds the Dockerfile (minutes, as root): `npm run test:image` (vitest.image.config.ts).
    exclude: [...configDefaults.exclude, "test/image/**"],
    // e2e tests spawn real MCP servers; two cores are shared between them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    // Under a full run servers start slowly; a first tools/list waits for them (test/e2e/slowServers.test.ts
    // sets --list-wait itself to test the announcement of late servers).
    env: { TOOLGATE_LIST_WAIT: "60000" },
    setupFiles: ["test/support/inheritListWait.ts"],
  },
});
