// What a permission dialog shows about a call: a title, the exact command, or the file and the
// diff the call would make (computed from the file as it is now, without writing anything).
// The diff is computed in a worker of the compute pool, bounded in size and time like the cards'
// (tools/bounded-diff.ts), and given up after PREVIEW_TIMEOUT_MS with a note, so a dialog never
// blocks the main process nor waits long to appear. Never rejects: a preview that cannot be
// computed (an edit that would fail, an unreadable file) is left out.
import type { PermissionRequest } from "../../shared/ipc/contract.ts";
import { type ComputePool, ComputeTimeoutError, computePool } from "../workers/compute-pool.ts";
import type { CallSubjects } from "./policy.ts";

/** The dialog's diff is given up after this long; the dialog then says so. */
export const PREVIEW_TIMEOUT_MS = 2_000;

export interface SummaryOptions {
  signal?: AbortSignal;
  pool?: ComputePool;
  timeoutMs?: number;
}

export async function summarizeCall(toolName: string, args: unknown, s: CallSubjects, options: SummaryOptions = {}): Promise<PermissionRequest["summary"]> {
  const where = s.outsideProject ? " (outside the project)" : "";
  const path = s.subjects[0];
  const abs = s.absolutePaths[0];
  const a = (args ?? {}) as Record<string, unknown>;
  // A call without a path (arguments the tool would refuse) is titled by its verb alone.
  const titled = (verb: string) => `${verb} ${path ?? ""}${where}`.trim();
  switch (toolName) {
    case "bash":
      return { title: "Run a command", command: s.command ?? "", outsideProject: false };
    case "edit":
      return { title: titled("Edit"), path, diff: abs ? await editDiff(abs, path!, a.edits, options) : undefined, outsideProject: s.outsideProject };
    case "write":
      return { title: titled("Write"), path, diff: abs ? await writeDiff(abs, path!, a.content, options) : undefined, outsideProject: s.outsideProject };
    default:
      return { title: titled(capitalize(toolName)), path, outsideProject: s.outsideProject };
  }
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function timedOut(options: SummaryOptions): string {
  return `The diff is not shown: computing it took longer than ${(options.timeoutMs ?? PREVIEW_TIMEOUT_MS) / 1000} s.\n`;
}

async function editDiff(file: string, name: string, edits: unknown, options: SummaryOptions): Promise<string | undefined> {
  if (!Array.isArray(edits)) return undefined;
  const valid = edits.every((e) => typeof e?.oldText === "string" && typeof e?.newText === "string");
  if (!valid) return undefined;
  try {
    const result = await (options.pool ?? computePool()).run(
      { kind: "edit", path: file, shown: name, edits: edits as { oldText: string; newText: string }[], oldName: `a/${name}`, newName: `b/${name}` },
      { timeoutMs: options.timeoutMs ?? PREVIEW_TIMEOUT_MS, signal: options.signal },
    );
    return result.diff;
  } catch (error) {
    return error instanceof ComputeTimeoutError ? timedOut(options) : undefined;
  }
}

async function writeDiff(file: string, name: string, content: unknown, options: SummaryOptions): Promise<string | undefined> {
  if (typeof content !== "string") return undefined;
  try {
    const result = await (options.pool ?? computePool()).run(
      { kind: "fileDiff", path: file, shown: name, content, oldName: `a/${name}`, newName: `b/${name}` },
      { timeoutMs: options.timeoutMs ?? PREVIEW_TIMEOUT_MS, signal: options.signal },
    );
    return result.diff;
  } catch (error) {
    return error instanceof ComputeTimeoutError ? timedOut(options) : undefined;
  }
}
