// Stops a build or test script at once, with a clear message and exit status 4, when Node.js is
// older than 22.12: imported first by scripts/build.mjs, scripts/run-bench.mjs and vitest's config,
// so it runs before anything that would fail obscurely (better-sqlite3 segfaults on Node 20). Plain
// JavaScript, as old Nodes cannot strip TypeScript; app/shared/node-version.ts is the same rule for
// the app's own entry points (test/startup/node-version.test.ts checks that the two agree).
export const MINIMUM = { major: 22, minor: 12 };

/** The same words as app/shared/node-version.ts's nodeVersionProblem. */
export function nodeVersionProblem(version, executable = "") {
  const [major = 0, minor = 0] = version
    .replace(/^v/, "")
    .split(".")
    .map((n) => Number.parseInt(n, 10) || 0);
  if (major > MINIMUM.major || (major === MINIMUM.major && minor >= MINIMUM.minor)) return null;
  return (
    `Lathe needs Node.js ${MINIMUM.major}.${MINIMUM.minor} or later (24 LTS recommended); this is Node.js ${version.replace(/^v/, "")}` +
    `${executable ? ` (${executable})` : ""}. Install a newer Node.js (for example with nvm: \`nvm install 24\`, as .nvmrc says) and run the command again.`
  );
}

const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem) {
  console.error(problem);
  process.exit(4);
}
