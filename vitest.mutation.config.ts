// Vitest as Stryker runs it (stryker.config.mjs): the project's settings, with test files found at
// any depth under the folder Stryker names as `dir` (test/store, test/permissions, app/main/loop),
// since Vitest matches `include` relative to that folder.
import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.ts";

export default mergeConfig(base, defineConfig({ test: { include: ["**/*.test.ts"] } }));
