// Desktop notifications of the Electron shell, in plain Node: the service (sessions/attention-
// notifier.ts) fed session.state events through a real EventHub, shown through the Electron
// adapter (electron/notification-port.ts) over an injected stand-in for Electron's Notification.
// A run that ends and a new approval question notify while the window is not in front, once each;
// a click opens that session; nothing shows while the window is in front or where the platform
// has no notifications; a failing platform never breaks the event delivery.
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { SessionState } from "../../app/shared/ipc/contract.ts";
import { EventHub } from "../../app/main/ipc/event-hub.ts";
import { startAttentionNotifier } from "../../app/main/sessions/attention-notifier.ts";
import { electronNotificationPort } from "../../app/main/electron/notification-port.ts";

function fakeNotificationClass(supported = true, failOnShow = false) {
  const shown: FakeNotification[] = [];
  class FakeNotification extends EventEmitter {
    readonly options: { title: string; body: string };
    constructor(options: { title: string; body: string }) {
      super();
      this.options = options;
    }
    show(): void {
      if (failOnShow) throw new Error("no notification server");
      shown.push(this);
    }
    static isSupported(): boolean {
      return supported;
    }
  }
  return { FakeNotification, shown };
}

const state = (over: Partial<SessionState>): SessionState => ({
  sessionId: 7,
  running: false,
  model: null,
  queued: { steering: [], followUp: [] },
  pendingPermissions: [],
  contextTokens: 0,
  contextWindow: 0,
  instructionFiles: [],
  lastRun: null,
  ...over,
});

const request = {
  id: "r1",
  sessionId: 7,
  toolCallId: "c1",
  toolName: "bash",
  summary: { title: "Run a command", command: "npm test" },
} as unknown as SessionState["pendingPermissions"][number];

function setup(options: { inFront?: () => boolean; supported?: boolean; failOnShow?: boolean } = {}) {
  const hub = new EventHub(() => undefined);
  const { FakeNotification, shown } = fakeNotificationClass(options.supported ?? true, options.failOnShow ?? false);
  const opened: number[] = [];
  const errors: unknown[] = [];
  const stop = startAttentionNotifier({
    onSessionState: (listener) => hub.add({ sessionEvent: () => undefined, emit: (event, payload) => event === "session.state" && listener(payload as SessionState) }),
    liveStates: () => [state({ sessionId: 3, running: true })],
    titleOf: (id) => (id === 7 ? "Fix the failing test" : null),
    inFront: options.inFront ?? (() => false),
    onOpen: (id) => opened.push(id),
    port: electronNotificationPort(FakeNotification),
    onError: (e) => errors.push(e),
  });
  return { hub, shown, opened, errors, stop };
}

describe("desktop notifications through Electron's Notification", () => {
  it("notifies a question and a finished run once each while the window is not in front; a click opens the session", () => {
    const { hub, shown, opened, stop } = setup();
    hub.emit("session.state", state({ running: true }));
    hub.emit("session.state", state({ running: true, pendingPermissions: [request] }));
    hub.emit("session.state", state({ running: true, pendingPermissions: [request] }));
    hub.emit("session.state", state({ running: false, lastRun: { outcome: "done", endedAt: 100 } }));
    hub.emit("session.state", state({ running: false, lastRun: { outcome: "done", endedAt: 100 } }));
    expect(shown.map((n) => n.options)).toEqual([
      { title: "Fix the failing test — needs your approval", body: "bash: npm test" },
      { title: "Fix the failing test — finished", body: "The run finished." },
    ]);
    shown[0]!.emit("click");
    expect(opened).toEqual([7]);
    // A session that was running at start and ends: its run was seen, so it notifies (untitled).
    hub.emit("session.state", state({ sessionId: 3, running: false, lastRun: { outcome: "failed", endedAt: 5, error: "exit 1" } }));
    expect(shown.at(-1)!.options).toEqual({ title: "A Lathe session — failed", body: "The run failed: exit 1" });
    stop();
    hub.emit("session.state", state({ running: true, pendingPermissions: [{ ...request, id: "r2" }] }));
    expect(shown).toHaveLength(3);
  });

  it("shows nothing while the window is in front, or where the platform has none; a failing platform is reported, not thrown", () => {
    let front = true;
    const inFront = setup({ inFront: () => front });
    inFront.hub.emit("session.state", state({ running: true, pendingPermissions: [request] }));
    expect(inFront.shown).toHaveLength(0);
    front = false;
    inFront.hub.emit("session.state", state({ running: true, pendingPermissions: [request, { ...request, id: "r2" }] }));
    expect(inFront.shown.map((n) => n.options.body)).toEqual(["bash: npm test"]);

    const unsupported = setup({ supported: false });
    unsupported.hub.emit("session.state", state({ running: true, pendingPermissions: [request] }));
    expect(unsupported.shown).toHaveLength(0);

    const failing = setup({ failOnShow: true });
    expect(() => failing.hub.emit("session.state", state({ running: true, pendingPermissions: [request] }))).not.toThrow();
    expect(String(failing.errors[0])).toContain("no notification server");
  });
});
