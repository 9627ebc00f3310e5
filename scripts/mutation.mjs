// npm run test:mutation [loop|permissions|permissions-app|store …] [-- stryker options]: StrykerJS
// over each target in turn (all four by default: app/main/permissions is two targets, see
// stryker.config.mjs), one after another so the shared machine is not flooded; prints each
// target's time. Options starting with "--" go to every Stryker run (e.g. --incremental).
// Reports: reports/mutation/<target>.html and .json. Exits non-zero when a target scores under
// the break threshold of stryker.config.mjs.
import { spawnSync } from "node:child_process";

const args = process.argv.slice(2);
const options = args.filter((arg) => arg.startsWith("--"));
const named = args.filter((arg) => !arg.startsWith("--"));
const targets = named.length > 0 ? named : ["loop", "permissions", "permissions-app", "store"];
let failed = false;
for (const target of targets) {
  const started = Date.now();
  const run = spawnSync("npx", ["stryker", "run", ...options], { stdio: "inherit", env: { ...process.env, LATHE_MUTATE: target } });
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`mutation testing of ${target}: ${run.status === 0 ? "passed" : "FAILED"} in ${minutes} min`);
  failed ||= run.status !== 0;
}
process.exit(failed ? 1 : 0);
