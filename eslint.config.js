// Type-aware lint for every workspace: floating promises and unhandled rejections are errors. The
// root's plain-JavaScript scripts and configs get the recommended rules (`npm run lint:scripts`).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const SCRIPTS = ["**/scripts/**/*.mjs", "*.js"];

export default tseslint.config(
  { ignores: ["**/dist/**", "**/src/gen/**", "**/node_modules/**", "bench/results/**", "**/*.cjs", "**/*.d.mts"] },
  js.configs.recommended,
  {
    files: SCRIPTS,
    languageOptions: { globals: globals.node, ecmaVersion: "latest", sourceType: "module" },
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }] },
  },
  {
    files: ["**/*.ts", "**/*.mts"],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/only-throw-error": "error",
    },
  },
  {
    files: ["**/test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
);
