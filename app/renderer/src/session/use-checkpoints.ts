// The session's checkpoints as the window shows them: its turns' changed files and its rewinds,
// loaded with checkpoints.list and loaded again whenever the host says they changed (a turn's
// after-checkpoint, a rewind) for this session. `byPosition` finds a turn by its assistant
// message's transcript position.
import { useCallback, useEffect, useMemo, useState } from "react";
import type { CheckpointList, TurnChanges } from "../../../shared/ipc/checkpoint-schemas";
import { getApi } from "../api/client";
import { errorText, unwrap, useSubscription } from "../state/api-hooks";

export interface SessionCheckpoints {
  list: CheckpointList | null;
  error: string | null;
  byPosition: ReadonlyMap<number, TurnChanges>;
  reload: () => void;
}

const subscribeChanged = (listener: (p: { sessionId: number }) => void) => getApi().events.onCheckpointsChanged(listener);

export function useCheckpoints(sessionId: number, running: boolean): SessionCheckpoints {
  const [list, setList] = useState<CheckpointList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  useSubscription(subscribeChanged, (p) => {
    if (p.sessionId === sessionId) reload();
  });
  useEffect(() => {
    let live = true;
    unwrap(getApi().checkpoints.list({ sessionId })).then(
      (l) => {
        if (!live) return;
        setList(l);
        setError(null);
      },
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
    // `running` too: a run's end may bring turns whose after-checkpoint failed.
  }, [sessionId, version, running]);
  const byPosition = useMemo(() => new Map((list?.turns ?? []).map((t) => [t.position, t])), [list]);
  return { list, error, byPosition, reload };
}
