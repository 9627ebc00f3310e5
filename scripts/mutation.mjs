// npm run test:mutation [loop|permissions|store …]: StrykerJS over each folder in turn (all three
// by default), one after another so the shared machine is not flooded; prints each folder's time.
// Reports: reports/mutation/<folder>.html and .json. Exits non-zero when a folder scores under
// the break threshold of stryker.config.mjs.
import { spawnSync } from "node:child_process";

const targets = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["loop", "permissions", "store"];
let failed = false;
for (const target of targets) {
  const started = Date.now();
  const run = spawnSync("npx", ["stryker", "run"], { stdio: "inherit", env: { ...process.env, LATHE_MUTATE: target } });
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`mutation testing of app/main/${target}: ${run.status === 0 ? "passed" : "FAILED"} in ${minutes} min`);
  failed ||= run.status !== 0;
}
process.exit(failed ? 1 : 0);
