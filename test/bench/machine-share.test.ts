// bench/support/machine-share.ts: the idle and steal shares the checkpoints bench reports beside
// its figures, read from /proc/stat's aggregate "cpu" line.
import { describe, expect, it } from "vitest";
import { cpuTimes, machineShare } from "../../bench/support/machine-share.ts";

const stat = (user: number, idle: number, iowait: number, steal: number) => `cpu  ${user} 0 0 ${idle} ${iowait} 0 0 ${steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1 2 3\n`;

describe("machine share", () => {
  it("gives the idle (iowait included) and steal shares of the time between two readings", () => {
    const before = cpuTimes(() => stat(1000, 5000, 100, 10));
    const after = cpuTimes(() => stat(1600, 5300, 100, 110));
    // 1,000 ticks passed: 600 user, 300 idle, 100 steal.
    expect(machineShare(before, after)).toEqual({ idlePct: 30, stealPct: 10 });
  });

  it("reads the aggregate line only, whatever the per-CPU lines say", () => {
    expect(cpuTimes(() => `cpu0 9 9 9 9 9 9 9 9\n${stat(1, 2, 3, 4)}`)).toEqual({ idle: 5, steal: 4, total: 10 });
  });

  it("gives null, not a wrong share, when /proc/stat is missing or malformed or no time passed", () => {
    expect(
      cpuTimes(() => {
        throw new Error("ENOENT");
      }),
    ).toBeNull();
    expect(cpuTimes(() => "cpu  1 2 3\n")).toBeNull();
    expect(cpuTimes(() => "cpu  1 2 3 x 5 6 7 8\n")).toBeNull();
    expect(cpuTimes(() => "intr 1\n")).toBeNull();
    const same = cpuTimes(() => stat(1, 2, 3, 4));
    expect(machineShare(same, same)).toBeNull();
    expect(machineShare(null, same)).toBeNull();
  });

  it("reads this machine's /proc/stat on Linux", async () => {
    if (process.platform !== "linux") return;
    const { readFileSync } = await import("node:fs");
    const now = cpuTimes(() => readFileSync("/proc/stat", "utf8"));
    expect(now?.total).toBeGreaterThan(0);
  });
});
