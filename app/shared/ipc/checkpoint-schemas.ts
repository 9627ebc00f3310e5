// TypeBox schemas of the checkpoint requests' answers (files changed per turn, per-file diffs, the
// rewind preview and its outcome). Files are named by `id` (base64url of the path's bytes: a file
// name need not be UTF-8) and shown by `path` (escaped for display).
import { Type, type Static } from "@sinclair/typebox";

/** customType of the transcript note a rewind with a kept conversation adds (the model is told too). */
export const CHECKPOINT_REWIND = "checkpoint-rewind";

const Status = Type.Union([Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted")]);

/**
 * One bash command can change 100,000 files: a turn's list and a rewind preview name at most this
 * many (with the totals), so neither the host nor the window handles lists of that size.
 */
export const MAX_LISTED_FILES = 1_000;

export const ChangedFileSchema = Type.Object({
  id: Type.String(),
  path: Type.String(),
  status: Status,
  /** Over the size limit: recorded as changed, content not stored (no diff, not restorable). */
  large: Type.Boolean(),
  /** The calls that changed it (one when certain; several: one of them; none: unknown). */
  toolCallIds: Type.Array(Type.String()),
  certain: Type.Boolean(),
});

export const TurnChangesSchema = Type.Object({
  key: Type.String(),
  /** Transcript position of the turn's assistant message, and of the user message before it. */
  position: Type.Integer(),
  userPosition: Type.Integer(),
  beforeId: Type.Integer(),
  /** Null while the turn runs (or when its after-checkpoint failed). */
  afterId: Type.Union([Type.Integer(), Type.Null()]),
  /** The first MAX_LISTED_FILES of the files it changed (in git's order). */
  files: Type.Array(ChangedFileSchema),
  /** How many files it changed (listed or not). */
  fileCount: Type.Integer({ minimum: 0 }),
});

export const RewindInfoSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  restored: Type.Integer(),
  removed: Type.Integer(),
  kept: Type.Integer(),
  destination: Type.String(),
  createdAt: Type.Number(),
  /** The rewind that undid this one, if any. */
  undoneBy: Type.Union([Type.Integer(), Type.Null()]),
  /** Whether it can be undone from this session (it wrote to the project folder). */
  undoable: Type.Boolean(),
});

export const CheckpointListSchema = Type.Object({
  /** False when checkpoints cannot be taken here (no git, read-only); `notice` says why. */
  available: Type.Boolean(),
  notice: Type.Union([Type.String(), Type.Null()]),
  /** Files over this many bytes are not stored. */
  maxFileBytes: Type.Integer(),
  turns: Type.Array(TurnChangesSchema),
  rewinds: Type.Array(RewindInfoSchema),
});

export const FileDiffSchema = Type.Object({
  path: Type.String(),
  diff: Type.String(),
  complete: Type.Boolean(),
  binary: Type.Boolean(),
  large: Type.Boolean(),
});

export const PreviewFileSchema = Type.Object({
  id: Type.String(),
  path: Type.String(),
  change: Status,
  action: Type.Union([Type.Literal("restore"), Type.Literal("remove"), Type.Literal("keep")]),
  /** Changed outside Lathe since the checkpoint: kept unless the person chooses to restore it. */
  conflict: Type.Boolean(),
  reason: Type.Union([Type.Literal("agent"), Type.Literal("yours"), Type.Literal("changed-outside"), Type.Literal("too-large")]),
});

export const RewindPreviewSchema = Type.Object({
  previewId: Type.String(),
  sessionId: Type.Integer(),
  position: Type.Union([Type.Integer(), Type.Null()]),
  undoOf: Type.Union([Type.Integer(), Type.Null()]),
  /** At most MAX_LISTED_FILES: the conflicts first (they need a choice), then the rest by path. */
  files: Type.Array(PreviewFileSchema),
  /** Over every file, listed or not: what the rewind does unless the person chooses otherwise. */
  totals: Type.Object({
    restore: Type.Integer({ minimum: 0 }),
    remove: Type.Integer({ minimum: 0 }),
    /** Kept: your new files, files over the size limit, and conflicts (unless chosen). */
    keep: Type.Integer({ minimum: 0 }),
    conflicts: Type.Integer({ minimum: 0 }),
  }),
  warnings: Type.Array(Type.String()),
  gitRepository: Type.Boolean(),
});

export const RewindOutcomeSchema = Type.Object({
  rewindId: Type.Integer(),
  folder: Type.String(),
  worktree: Type.Boolean(),
  written: Type.Integer(),
  removed: Type.Integer(),
  alreadyDone: Type.Integer(),
  skipped: Type.Array(Type.Object({ path: Type.String(), why: Type.String() })),
});

export type ChangedFile = Static<typeof ChangedFileSchema>;
export type TurnChanges = Static<typeof TurnChangesSchema>;
export type RewindInfo = Static<typeof RewindInfoSchema>;
export type CheckpointList = Static<typeof CheckpointListSchema>;
export type FileDiff = Static<typeof FileDiffSchema>;
export type PreviewFile = Static<typeof PreviewFileSchema>;
export type RewindPreview = Static<typeof RewindPreviewSchema>;
