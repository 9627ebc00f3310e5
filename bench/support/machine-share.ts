// What the whole machine did while a bench measured: shares of all CPUs' time that were idle and
// that the hypervisor took for other guests (steal), from /proc/stat (Linux; null elsewhere). The
// 1-minute load average lags by a minute and does not show steal, so a run on a "quiet" machine
// whose figures drift can be told from one the host slowed (issue #18: checkpointMs series that
// grew run after run; the kernel's dentry state and the bench's leftovers were ruled out).

export interface CpuTimes {
  readonly idle: number;
  readonly steal: number;
  readonly total: number;
}

/** The machine's CPU time counters now (clock ticks), or null when /proc/stat cannot be read. */
export function cpuTimes(read: () => string): CpuTimes | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  const line = text.split("\n").find((l) => l.startsWith("cpu "));
  if (!line) return null;
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return null;
  const total = fields.reduce((a, b) => a + b, 0);
  return { idle: fields[3]! + fields[4]!, steal: fields[7]!, total };
}

/** Idle and steal shares (percent, one decimal) between two readings; null if either is missing or no time passed. */
export function machineShare(before: CpuTimes | null, after: CpuTimes | null): { idlePct: number; stealPct: number } | null {
  if (!before || !after) return null;
  const total = after.total - before.total;
  if (total <= 0) return null;
  const pct = (n: number) => Math.round((n / total) * 1000) / 10;
  return { idlePct: pct(after.idle - before.idle), stealPct: pct(after.steal - before.steal) };
}
