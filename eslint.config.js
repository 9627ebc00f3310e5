// Lint rules. The one rule specific to Lathe: only the Electron shell (app/main/electron) and the
// preload import `electron`; every service runs and is tested in plain Node.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

const noElectron = {
  "no-restricted-imports": [
    "error",
    {
      paths: [{ name: "electron", message: "Only app/main/electron and app/preload may import electron." }],
      patterns: [{ group: ["electron/*"], message: "Only app/main/electron and app/preload may import electron." }],
    },
  ],
};

export default tseslint.config(
  // reports/ and .stryker-tmp/: mutation reports and Stryker's copies of the project during a run.
  { ignores: ["node_modules/", "out/", "dist/", "coverage/", "screenshots/", "reports/", ".stryker-tmp/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      ...noElectron,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    files: ["app/main/electron/**", "app/preload/**"],
    rules: { "no-restricted-imports": "off" },
  },
  {
    files: ["app/renderer/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // A skipped suite must say why (CI fails on any skip): describeWhen / itWhen print the reason.
    files: ["test/**/*.ts", "app/**/test/**/*.ts"],
    ignores: ["test/support/requirements.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name=/^(describe|it|test)$/][property.name=/^(skip|skipIf|runIf)$/]",
          message: "Skip through describeWhen / itWhen (test/support/requirements.ts), which print why.",
        },
      ],
    },
  },
);
