// Type-aware lint for every workspace: floating promises and unhandled rejections are errors. The
// root's plain-JavaScript scripts and configs get the recommended rules (`npm run lint:scripts`).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

const SCRIPTS = ["**/scripts/**/*.mjs", "*.js"];
/** Domain folders that do no I/O (dependency rule domain-is-pure-small-services; content has domain-is-pure). */
const PURE_DOMAINS = ["services/{identity,collaboration,publishing,integration}/src/domain/**/*.ts"];

export default tseslint.config(
  {
    ignores: ["**/dist/**", "**/src/gen/**", "**/node_modules/**", "bench/results/**", "**/*.cjs", "**/*.d.mts", "services/integration/test/fixtures/**/*.tsx"],
  },
  js.configs.recommended,
  {
    files: SCRIPTS,
    languageOptions: { globals: globals.node, ecmaVersion: "latest", sourceType: "module" },
    rules: { "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }] },
  },
  {
    files: ["**/*.ts", "**/*.mts", "**/*.tsx"],
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
    // domain-is-pure-small-services (.dependency-cruiser.js) for what the module graph cannot see: named imports.
    files: PURE_DOMAINS,
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@mikro-orm/postgresql",
              importNames: ["EntityManager", "EntityRepository"],
              message: "Domain code does no I/O: a function that queries goes to store/ (CODE_STYLE.md § Persistence).",
            },
            {
              name: "@imprint/runtime",
              importNames: ["sql", "queryRows", "executeStatement", "findOwned", "findOwnedOrNull", "WorkQueue", "forkEm"],
              message: "Domain code does no I/O: a function that queries goes to store/ (CODE_STYLE.md § Persistence).",
            },
          ],
        },
      ],
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
