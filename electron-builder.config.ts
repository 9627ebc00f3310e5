// electron-builder configuration (used by `npm run dist`; read by scripts/pack-check.ts, which
// packs the asar offline exactly from these `files` / `asarUnpack` rules). A config file rather
// than a "build" key in package.json because the publish target is computed from the environment,
// the afterPack hook is a function, and the choices need comments.
// app id, product name and version come from package.json (name/productName/version).
import type { Configuration } from "electron-builder";
import { afterPack } from "./scripts/fuses.ts";

/** Native Node-API modules: the only runtime dependencies, unpacked beside app.asar. */
export const NATIVE_MODULES = ["better-sqlite3", "node-pty"] as const;

/** The compute pool's worker script (scripts/build.mjs), kept unpacked beside app.asar. */
export const COMPUTE_WORKER_PATH = "out/main/compute-worker.cjs";

/** The project's own terminal reader (app/main/tools/native, built at install), unpacked beside app.asar. */
export const PTY_READER_PATH = "out/main/native/pty_reader.node";

/** The first checkpoint's process (scripts/build.mjs), kept unpacked beside app.asar: it starts the compute worker beside it. */
export const SNAPSHOT_PROCESS_PATH = "out/main/snapshot-process.cjs";

/**
 * Updates stay off until a publish target is given at build time: with one, electron-builder
 * writes resources/app-update.yml and the app's updater (app/main/electron/updater.ts) checks it;
 * without one (publish: null) no such file exists and the updater never runs.
 *   LATHE_UPDATE_URL=https://example.org/lathe/   generic server holding latest*.yml + installers
 *   LATHE_GITHUB_REPO=owner/repo                  GitHub Releases
 */
export function publishFromEnv(env: NodeJS.ProcessEnv): Configuration["publish"] {
  const url = env.LATHE_UPDATE_URL?.trim();
  if (url) {
    if (!/^https:\/\//.test(url)) throw new Error(`LATHE_UPDATE_URL must be an https:// URL, got "${url}"`);
    return [{ provider: "generic", url }];
  }
  const repo = env.LATHE_GITHUB_REPO?.trim();
  if (repo) {
    const match = /^([\w.-]+)\/([\w.-]+)$/.exec(repo);
    if (!match) throw new Error(`LATHE_GITHUB_REPO must look like owner/repo, got "${repo}"`);
    return [{ provider: "github", owner: match[1]!, repo: match[2]! }];
  }
  return null;
}

const config: Configuration = {
  appId: "dev.lathe.app",
  productName: "Lathe",
  copyright: "Copyright © Lathe contributors",
  directories: { output: "dist", buildResources: "build" },

  // Only the bundles and package.json; electron-builder adds the production dependencies
  // (better-sqlite3, node-pty) itself, filtered by the "!" patterns below.
  files: [
    "out/main/**",
    "out/preload/**",
    "out/renderer/**",
    "!**/*.map",
    // better-sqlite3: keep lib/ and the prebuilt binary for the target; drop the SQLite sources.
    "!**/node_modules/better-sqlite3/{deps,src,docs,benchmark,test}{,/**}",
    "!**/node_modules/better-sqlite3/binding.gyp",
    "!**/node_modules/better-sqlite3/prebuilds/!(${platform}-${arch}).node",
    // node-pty: keep lib/ and build/Release (built from source on Linux) or the target's prebuilds.
    "!**/node_modules/node-pty/{deps,src,scripts,third_party,typings}{,/**}",
    "!**/node_modules/node-pty/binding.gyp",
    "!**/node_modules/node-pty/lib/**/*.test.js",
    "!**/node_modules/node-pty/build/!(Release){,/**}",
    "!**/node_modules/node-pty/build/Release/{obj.target,.deps}{,/**}",
    "!**/node_modules/node-pty/prebuilds/!(${platform}-${arch}){,/**}",
    // node-addon-api is C++ headers for compiling the modules, never loaded at run time.
    "!**/node_modules/node-addon-api{,/**}",
    "!**/node_modules/*/{README.md,CHANGELOG.md,*.markdown}",
  ],
  asar: true,
  // Native code cannot be dlopen'ed from inside an asar: both modules live whole in
  // app.asar.unpacked (their JS too, so node-pty's spawn-helper / conpty files sit beside it), and
  // so does the terminal reader's binary (pty-reader.ts loads it through Electron's asar paths).
  // The compute pool's worker thread is a plain file beside them, so it loads like in a build
  // (app/main/workers/compute-pool.ts), and pack:check can run it; so is the first checkpoint's
  // process, which starts that worker from beside itself.
  asarUnpack: [...NATIVE_MODULES.map((name) => `node_modules/${name}/**`), PTY_READER_PATH, COMPUTE_WORKER_PATH, SNAPSHOT_PROCESS_PATH],
  // Both modules use Node-API, whose ABI is the same in Node and in Electron: the binaries
  // npm installed (prebuilt, or built for Node by node-gyp) load in Electron as they are.
  npmRebuild: false,
  nodeGypRebuild: false,
  buildDependenciesFromSource: false,
  afterPack,
  publish: publishFromEnv(process.env),

  linux: {
    target: ["AppImage", "deb"],
    category: "Development",
    executableName: "lathe",
    icon: "build/icons",
    synopsis: "A desktop coding agent",
    description: "A desktop coding agent that shows what it does, asks before it acts, and never loses a session.",
    maintainer: "Lathe contributors <lathe@users.noreply.github.com>",
    desktop: {
      entry: {
        Name: "Lathe",
        GenericName: "Coding Agent",
        Comment: "A desktop coding agent",
        Categories: "Development;",
        Keywords: "agent;ai;code;llm;",
        StartupWMClass: "Lathe",
      },
    },
  },
  deb: { priority: "optional" },
  mac: {
    target: ["dmg"],
    category: "public.app-category.developer-tools",
    icon: "build/icon.icns",
    hardenedRuntime: true,
  },
  dmg: { title: "Lathe ${version}" },
  win: { target: ["nsis"], icon: "build/icon.ico" },
  nsis: {
    oneClick: false,
    perMachine: false,
    allowToChangeInstallationDirectory: true,
    // The data folder (%APPDATA%\Lathe) holds the user's sessions: never delete it on uninstall.
    deleteAppDataOnUninstall: false,
    installerIcon: "build/icon.ico",
    uninstallerIcon: "build/icon.ico",
  },
};

export default config;
