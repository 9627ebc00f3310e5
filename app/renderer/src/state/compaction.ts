// The compaction rules the session view uses live in app/shared/compaction.ts, shared with the
// main process, so the UI's "in force" is exactly what the model is sent.
export { COMPACTION, COMPACTION_UNDO, compactionDetails, compactionState, compactionStateOf, type CompactionState, type CompactionStatus } from "../../../shared/compaction";
