// The jobs the compute pool runs, and the one function a worker thread calls for each. This is the
// whole protocol between the main process and its workers: a job is plain data (structured-cloned
// across), its result is plain data, and a job that throws comes back as {name, message, kind}.
// Adding a job: add its type to ComputeJob and ComputeResult, and a case to runComputeJob.
import { type EditJob, type EditJobResult, type FileDiffJob, type FileDiffJobResult, runEditJob, runFileDiffJob } from "../tools/file-jobs.ts";
import { type GlobJob, type GlobJobResult, runGlobJob } from "../tools/glob-job.ts";
import { type GrepJob, type GrepJobResult, runGrepJob } from "../tools/grep-match.ts";
import { type ContentDiffJob, type ContentDiffJobResult, type FileStatesJob, type FileStatesJobResult, runContentDiffJob, runFileStatesJob } from "./file-state-jobs.ts";
import { type ProcessTreeJob, type ProcessTreeResult, runProcessTreeJob } from "../tools/process-tree-jobs.ts";
import { type RepositoryScanJob, type RepositoryScanResult, runRepositoryScanJob } from "../sandbox/repository-scan.ts";
import { runStoreBlobsJob, type StoreBlobsJob, type StoreBlobsResult } from "./pack-writer.ts";
import { runWriteIndexJob, type WriteIndexJob, type WriteIndexResult } from "./index-writer.ts";

export type ComputeJob = EditJob | FileDiffJob | GrepJob | GlobJob | FileStatesJob | ContentDiffJob | ProcessTreeJob | RepositoryScanJob | StoreBlobsJob | WriteIndexJob;

export type ComputeResult<J extends ComputeJob> = J extends EditJob
  ? EditJobResult
  : J extends FileDiffJob
    ? FileDiffJobResult
    : J extends GrepJob
      ? GrepJobResult
      : J extends GlobJob
        ? GlobJobResult
        : J extends FileStatesJob
          ? FileStatesJobResult
          : J extends ContentDiffJob
            ? ContentDiffJobResult
            : J extends ProcessTreeJob
              ? ProcessTreeResult
              : J extends RepositoryScanJob
                ? RepositoryScanResult
                : J extends StoreBlobsJob
                  ? StoreBlobsResult
                  : J extends WriteIndexJob
                    ? WriteIndexResult
                    : never;

export function runComputeJob(
  job: ComputeJob,
):
  | EditJobResult
  | FileDiffJobResult
  | GrepJobResult
  | GlobJobResult
  | FileStatesJobResult
  | ContentDiffJobResult
  | ProcessTreeResult
  | RepositoryScanResult
  | StoreBlobsResult
  | WriteIndexResult {
  switch (job.kind) {
    case "edit":
      return runEditJob(job);
    case "fileDiff":
      return runFileDiffJob(job);
    case "grep":
      return runGrepJob(job);
    case "glob":
      return runGlobJob(job);
    case "fileStates":
      return runFileStatesJob(job);
    case "contentDiff":
      return runContentDiffJob(job);
    case "processFamily":
    case "waitingForInput":
      return runProcessTreeJob(job);
    case "repositoryScan":
      return runRepositoryScanJob(job);
    case "storeBlobs":
      return runStoreBlobsJob(job);
    case "writeIndex":
      return runWriteIndexJob(job);
  }
}

/** What a worker posts back for one job. */
export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { name: string; message: string; kind?: string } };
/** What a worker posts: one reply per job, and `{ ready: true }` once, when its code is loaded. */
export type WorkerMessage = WorkerReply | { ready: true };
