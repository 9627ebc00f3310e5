// The Node.js versions Lathe runs on: 22.12 or later (built for Node 24, the Node inside Electron).
// Older ones fail in ways that do not say why: better-sqlite3's binary segfaults on Node 20 when it
// loads. So the host's entry (app/main/host/launch.ts) asks this first, before anything loads it;
// scripts/check-node.mjs says the same for the build scripts (it runs before TypeScript can).
// Pure; never throws.

export const MINIMUM_NODE = { major: 22, minor: 12 } as const;
/** The exit status when Node is too old. */
export const EXIT_NODE_TOO_OLD = 4;

/** What is wrong with running on Node `version` (e.g. "20.20.2"), or null when it will do. */
export function nodeVersionProblem(version: string, executable = ""): string | null {
  const [major = 0, minor = 0] = version
    .replace(/^v/, "")
    .split(".")
    .map((n) => Number.parseInt(n, 10) || 0);
  if (major > MINIMUM_NODE.major || (major === MINIMUM_NODE.major && minor >= MINIMUM_NODE.minor)) return null;
  return (
    `Lathe needs Node.js ${MINIMUM_NODE.major}.${MINIMUM_NODE.minor} or later (24 LTS recommended); this is Node.js ${version.replace(/^v/, "")}` +
    `${executable ? ` (${executable})` : ""}. Install a newer Node.js (for example with nvm: \`nvm install 24\`, as .nvmrc says) and run the command again.`
  );
}
