// A listener that throws is reported and stays attached: it gets the next events, and the other
// listeners get every event whatever it does.
import { describe, expect, it } from "vitest";
import { EventHub, type HubListener } from "../../app/main/ipc/event-hub.ts";

function recorder(throwOn?: (what: string) => boolean): HubListener & { got: string[] } {
  const got: string[] = [];
  return {
    got,
    sessionEvent(sessionId, event) {
      got.push(event.type);
      if (throwOn?.(event.type)) throw new Error(`cannot deliver ${event.type}`);
    },
    emit(event) {
      got.push(event);
      if (throwOn?.(event)) throw new Error(`cannot deliver ${event}`);
    },
  };
}

describe("EventHub", () => {
  it("reports a throwing listener and keeps it attached", () => {
    const reports: string[] = [];
    const hub = new EventHub((what, error) => reports.push(`${what}: ${(error as Error).message}`));
    const flaky = recorder((what) => what === "agent_start" || what === "app.notice");
    const steady = recorder();
    hub.add(flaky);
    hub.add(steady);
    hub.sessionEvent(7, { type: "agent_start" });
    hub.emit("app.notice", { level: "info", message: "x" });
    hub.sessionEvent(7, { type: "turn_start" });
    expect(hub.size).toBe(2);
    expect(flaky.got).toEqual(["agent_start", "app.notice", "turn_start"]);
    expect(steady.got).toEqual(["agent_start", "app.notice", "turn_start"]);
    expect(reports).toEqual(["session 7 agent_start: cannot deliver agent_start", "app.notice: cannot deliver app.notice"]);
  });

  it("survives a reporter that throws too", () => {
    const hub = new EventHub(() => {
      throw new Error("reporter down");
    });
    const flaky = recorder(() => true);
    hub.add(flaky);
    expect(() => hub.emit("app.notice", { level: "info", message: "x" })).not.toThrow();
    expect(hub.size).toBe(1);
  });
});
