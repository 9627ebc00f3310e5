import { defineConfig, type Plugin } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { META_CONTENT_SECURITY_POLICY } from "./app/shared/csp.ts";

// index.html carries `%LATHE_CSP%` in its CSP meta tag; the policy itself lives in app/shared/csp.ts.
const injectCsp: Plugin = {
  name: "lathe-csp",
  transformIndexHtml: (html) => html.replace("%LATHE_CSP%", META_CONTENT_SECURITY_POLICY),
};

// The renderer is loaded from file:// in Electron and over HTTP by the headless host: relative
// asset paths serve both.
export default defineConfig({
  root: fileURLToPath(new URL("app/renderer", import.meta.url)),
  base: "./",
  plugins: [react(), injectCsp],
  build: {
    outDir: fileURLToPath(new URL("out/renderer", import.meta.url)),
    emptyOutDir: true,
    target: "chrome140",
    sourcemap: true,
    // Loaded from disk (or loopback), not over a network: one ~1 MB bundle is fine.
    chunkSizeWarningLimit: 1500,
  },
});
