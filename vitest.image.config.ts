import { defineConfig } from "vitest/config";

// `npm run test:image`: builds the Dockerfile with podman (minutes, root, debootstrap) and checks the image;
// kept out of `npm test` (vitest.config.ts excludes test/image).
export default defineConfig({
  test: {
    include: ["test/image/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 25 * 60_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
