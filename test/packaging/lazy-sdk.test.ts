// The provider SDKs are not part of start-up (issue 16): the CommonJS main bundle requires each from
// a file of its own only when a provider is first used, the host's ESM bundle has them in chunks,
// and both load when needed: the built host, testing an Anthropic provider at a closed port, gets
// a connection failure (the SDK ran), not a missing module.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHost, startHostProcess } from "../support/host-process.ts";

const root = path.join(import.meta.dirname, "..", "..");
let out: string;

beforeAll(() => {
  // Inside the repository, so the built host finds the native modules in node_modules.
  out = mkdtempSync(path.join(root, "out", "lazy-sdk-test-"));
  const built = spawnSync(process.execPath, ["scripts/build.mjs", "--no-renderer", "--out", out], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("provider SDKs load on first use", () => {
  it("are outside the main bundle, in files it requires lazily, each exporting its client", () => {
    const main = readFileSync(path.join(out, "main", "index.cjs"), "utf8");
    for (const [file, marker] of [
      ["sdk-anthropic.cjs", "anthropic-version"],
      ["sdk-openai.cjs", "OpenAI-Organization"],
    ] as const) {
      const sdk = readFileSync(path.join(out, "main", file), "utf8");
      expect(sdk).toContain(marker);
      expect(main).not.toContain(marker);
      expect(main).toContain(`require("./${file}")`);
      // The file exports the client class as `default`, which the module inlined in index.cjs hands to sdk.ts's import().
      const loaded = createRequire(path.join(out, "main", "index.cjs"))(`./${file}`) as { default: { name: string } };
      expect(typeof loaded.default).toBe("function");
      expect(loaded.default.name).toMatch(/Anthropic|OpenAI/);
      expect(main).toContain(`module2.exports = require("./${file}").default;`);
      expect(main).toContain(`__toESM(require_sdk_${file.slice(4, -4)}(), 1)`);
    }
    // The host: the SDKs are chunks of their own, not in index.mjs.
    const host = readFileSync(path.join(out, "host", "index.mjs"), "utf8");
    expect(host).not.toContain("anthropic-version");
    expect(readdirSync(path.join(out, "host")).some((f) => f.endsWith(".mjs") && readFileSync(path.join(out, "host", f), "utf8").includes("anthropic-version"))).toBe(true);
  });

  it("load in the built host when a provider is first used", async () => {
    const data = mkdtempSync(path.join(out, "data-"));
    const host = startHostProcess(data, [], { cli: path.join(out, "host", "index.mjs"), env: { ANTHROPIC_API_KEY: "sk-test-not-a-key" } });
    try {
      const connection = await connectHost(await host.url);
      expect((await connection.call("settings.setProvider", { id: "anthropic", kind: "anthropic", baseUrl: "http://127.0.0.1:9" })).ok).toBe(true);
      const tested = await connection.call<{ ok: boolean; message: string }>("providers.test", { id: "anthropic" });
      expect(tested.data?.ok).toBe(false);
      expect(tested.data?.message).not.toMatch(/module|Cannot find|is not a constructor/i);
      expect(tested.data?.message).toMatch(/connect|reach|refused|network|fetch/i);
      connection.close();
    } finally {
      host.child.kill("SIGTERM");
      await host.exited;
    }
  }, 60_000);
});
