// FrameCoalescer: hands on only the newest of the values pushed since the last animation frame, once
// per frame. A session's updates arrive as separate messages (event batches, states, pages), often
// several between two frames on a busy machine; rendering each would re-render the session view
// and lay out the page several times for one painted frame. Owns one pending frame at a time;
// `cancel` drops a pending value. Never throws (the deliver function's own errors aside).

export interface FrameCoalescer<T> {
  push(value: T): void;
  cancel(): void;
}

export interface FrameScheduler {
  request: (callback: () => void) => number;
  cancel: (handle: number) => void;
}

const animationFrames: FrameScheduler = {
  request: (callback) => requestAnimationFrame(callback),
  cancel: (handle) => cancelAnimationFrame(handle),
};

export function coalescePerFrame<T>(deliver: (value: T) => void, frames: FrameScheduler = animationFrames): FrameCoalescer<T> {
  let pending: { value: T } | null = null;
  let handle: number | null = null;
  return {
    push(value) {
      pending = { value };
      handle ??= frames.request(() => {
        handle = null;
        const next = pending;
        pending = null;
        if (next) deliver(next.value);
      });
    },
    cancel() {
      if (handle !== null) frames.cancel(handle);
      handle = null;
      pending = null;
    },
  };
}
