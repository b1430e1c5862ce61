import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-control-regex": "off",
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/cli/**"],
    rules: {
      // One-way imports (DESIGN §5): nothing imports the CLI.
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/cli/**"], message: "nothing imports src/cli" }] },
      ],
    },
  },
);
