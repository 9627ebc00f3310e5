// The audit log's reading side (app/main/store/audit-log.ts): newest first, paged backwards by
// id, bounded pages, filtered by session; a time given with the entry is kept.
import { describe, expect, it } from "vitest";
import type { SessionStore } from "../../app/main/store/index.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;

freshStoreForEachTest((opened) => (store = opened));

const entry = (n: number, sessionId: number | null = null) => ({
  sessionId,
  toolCallId: `c${n}`,
  toolName: "bash",
  args: { command: `echo ${n}` },
  decision: "allow" as const,
  decidedBy: "default",
  durationMs: null,
  outcome: null,
  at: 1_000 + n,
});

describe("the audit log", () => {
  it("pages newest first, backwards by id, 100 entries by default and 1000 at most", () => {
    const insert = () => {
      const ids: number[] = [];
      store.db.transaction(() => {
        for (let n = 0; n < 1002; n++) ids.push(store.audit.record(entry(n)));
      })();
      return ids;
    };
    const ids = insert();
    const first = store.audit.list();
    expect(first).toHaveLength(100);
    expect(first[0]).toEqual({ ...entry(1001), id: ids[1001] });
    expect(store.audit.list({ limit: 5000 })).toHaveLength(1000);
    expect(store.audit.list({ limit: 0 }).map((e) => e.id)).toEqual([ids[1001]]);
    expect(store.audit.list({ beforeId: ids[3], limit: 10 }).map((e) => e.toolCallId)).toEqual(["c2", "c1", "c0"]);
  });

  it("filters by session, and stores missing arguments as null", () => {
    const project = store.openProject("/work/app");
    const s = store.createSession({ projectId: project.id });
    store.audit.record(entry(1, s.id));
    store.audit.record({ ...entry(2), args: undefined });
    expect(store.audit.list({ sessionId: s.id }).map((e) => e.toolCallId)).toEqual(["c1"]);
    expect(store.audit.list({ sessionId: s.id + 1 })).toEqual([]);
    expect(store.audit.list()[0]!.args).toBeNull();
  });

  it("an entry without a time is stamped now; a refused entry is a StoreError naming the tool", () => {
    const before = Date.now();
    const { at: _at, ...untimed } = entry(1);
    store.audit.record(untimed);
    const [stored] = store.audit.list();
    expect(stored!.at).toBeGreaterThanOrEqual(before);
    expect(stored!.at).toBeLessThanOrEqual(Date.now());
    expect(() => store.audit.record({ ...entry(2), decision: "perhaps" as "allow" })).toThrow(/recording the audit entry for bash/);
  });

  it("finishing an entry fills in its duration and outcome; a refused update is a StoreError", () => {
    const id = store.audit.record(entry(1));
    store.audit.finish(id, 250, "ok");
    expect(store.audit.list()[0]).toMatchObject({ id, durationMs: 250, outcome: "ok" });
    store.db.exec("DROP TABLE tool_audit");
    expect(() => store.audit.finish(id, 1, "error")).toThrow(
      expect.objectContaining({ name: "StoreError", message: expect.stringMatching(/^updating the audit entry failed: no such table/) }),
    );
  });
});
