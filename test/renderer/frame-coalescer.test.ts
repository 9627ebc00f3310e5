// coalescePerFrame (the session view's updates): however many updates arrive between two animation
// frames, the frame hands on one, the newest; nothing is handed on without a frame, or after cancel.
import { describe, expect, it } from "vitest";
import { coalescePerFrame, type FrameScheduler } from "../../app/renderer/src/state/frame-coalescer.ts";

function fakeFrames() {
  const callbacks = new Map<number, () => void>();
  let next = 0;
  const scheduler: FrameScheduler = {
    request: (callback) => {
      callbacks.set(++next, callback);
      return next;
    },
    cancel: (handle) => void callbacks.delete(handle),
  };
  const frame = () => {
    const due = [...callbacks.values()];
    callbacks.clear();
    due.forEach((callback) => callback());
  };
  return { scheduler, frame, pending: () => callbacks.size };
}

describe("coalescePerFrame", () => {
  it("applies N updates queued before a frame with one delivery of the newest", () => {
    const frames = fakeFrames();
    const delivered: number[] = [];
    const coalescer = coalescePerFrame<number>((v) => delivered.push(v), frames.scheduler);
    for (let i = 1; i <= 25; i++) coalescer.push(i);
    expect(delivered).toEqual([]);
    expect(frames.pending()).toBe(1);
    frames.frame();
    expect(delivered).toEqual([25]);
    frames.frame();
    expect(delivered).toEqual([25]);
    coalescer.push(26);
    coalescer.push(27);
    frames.frame();
    expect(delivered).toEqual([25, 27]);
  });

  it("hands on nothing after cancel, and works again after it", () => {
    const frames = fakeFrames();
    const delivered: string[] = [];
    const coalescer = coalescePerFrame<string>((v) => delivered.push(v), frames.scheduler);
    coalescer.push("a");
    coalescer.cancel();
    expect(frames.pending()).toBe(0);
    frames.frame();
    expect(delivered).toEqual([]);
    coalescer.push("b");
    frames.frame();
    expect(delivered).toEqual(["b"]);
  });
});
