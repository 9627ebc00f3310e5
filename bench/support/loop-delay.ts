// The host's event-loop delay histogram (perf_hooks.monitorEventLoopDelay) ticks every
// LOOP_DELAY_RESOLUTION_MS and records the time between two ticks: an idle loop reads about this
// much, not 0. Shared by the host process that measures (ui-host-process.ts) and the bench that
// reports (ui.bench.ts: mainLoopLateP99Ms is the p99 less this).
export const LOOP_DELAY_RESOLUTION_MS = 10;
