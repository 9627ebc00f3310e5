// The compute pool's job for glob-match.ts: a glob's regex (from picomatch) tested against a batch
// of names in a worker thread, where a regex that backtracks for long can be stopped.
/** The compute job: indexes of the subjects the regex matches (picomatch's test: "" never matches, the glob itself always does). */
export interface GlobJob {
  kind: "glob";
  source: string;
  flags: string;
  glob: string;
  subjects: string[];
}
/** `ms`: the worker's own time matching the batch (glob-match.ts spends its budget by it). */
export interface GlobJobResult {
  matched: number[];
  ms: number;
}

export function runGlobJob(job: GlobJob): GlobJobResult {
  const started = performance.now();
  const regex = new RegExp(job.source, job.flags);
  const matched: number[] = [];
  job.subjects.forEach((s, i) => {
    if (s !== "" && (s === job.glob || regex.test(s))) matched.push(i);
  });
  return { matched, ms: performance.now() - started };
}
