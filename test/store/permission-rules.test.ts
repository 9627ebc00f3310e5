// Stored permission rules (app/main/store/permission-rules.ts): adding with the scope checks,
// editing as a replacement row, removing, and which rules apply to a call.
import { describe, expect, it } from "vitest";
import { StoreError, type SessionStore } from "../../app/main/store/index.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;

freshStoreForEachTest((opened) => (store = opened));

describe("permission rules", () => {
  it("adds a rule with `*` as its default pattern; a global rule takes no scope id, others need one", () => {
    const before = Date.now();
    const rule = store.permissionRules.add({ tool: "read", action: "allow", scope: "global", scopeId: null });
    expect(rule).toMatchObject({ tool: "read", pattern: "*", action: "allow", scope: "global", scopeId: null });
    expect(rule.createdAt).toBeGreaterThanOrEqual(before);
    expect(rule.createdAt).toBeLessThanOrEqual(Date.now());
    expect(() => store.permissionRules.add({ tool: "read", action: "allow", scope: "global", scopeId: 3 })).toThrow(new StoreError("invalid", "A global rule takes no scope id."));
    expect(() => store.permissionRules.add({ tool: "bash", action: "deny", scope: "session", scopeId: null })).toThrow(
      new StoreError("invalid", "A session rule needs a scope id."),
    );
    expect(store.permissionRules.all()).toEqual([rule]);
  });

  it("a database refusal is a StoreError naming the rule's tool", () => {
    expect(() => store.permissionRules.add({ tool: "bash", action: "maybe" as "allow", scope: "global", scopeId: null })).toThrow(/saving the permission rule for bash/);
    expect(store.permissionRules.all()).toEqual([]);
  });

  it("an edit replaces the rule by a new row with its scope; a missing rule is undefined", () => {
    const old = store.permissionRules.add({ tool: "bash", pattern: "npm test", action: "allow", scope: "project", scopeId: 7 });
    const other = store.permissionRules.add({ tool: "bash", pattern: "ls", action: "allow", scope: "global", scopeId: null });
    const edited = store.permissionRules.replace(old.id, { pattern: "npm run test" });
    expect(edited).toMatchObject({ tool: "bash", pattern: "npm run test", action: "allow", scope: "project", scopeId: 7 });
    expect(edited!.id).not.toBe(old.id);
    const denied = store.permissionRules.replace(edited!.id, { action: "deny" });
    expect(denied).toMatchObject({ pattern: "npm run test", action: "deny", scope: "project", scopeId: 7 });
    expect(store.permissionRules.all().map((r) => r.id)).toEqual([other.id, denied!.id]);
    expect(store.permissionRules.replace(old.id, { pattern: "x" })).toBeUndefined();
  });

  it("a failed edit leaves the old rule in place", () => {
    const old = store.permissionRules.add({ tool: "bash", pattern: "npm test", action: "allow", scope: "global", scopeId: null });
    expect(() => store.permissionRules.replace(old.id, { action: "sometimes" as "allow" })).toThrow(/saving the permission rule for bash failed: CHECK constraint/);
    expect(store.permissionRules.all()).toEqual([old]);
  });

  it("an edit or a removal the database refuses is a StoreError saying which", () => {
    const rule = store.permissionRules.add({ tool: "edit", action: "deny", scope: "global", scopeId: null });
    store.db.exec("DROP TABLE permission_rules");
    expect(() => store.permissionRules.replace(rule.id, { action: "allow" })).toThrow(
      expect.objectContaining({ name: "StoreError", message: expect.stringMatching(/^saving the edited permission rule failed: no such table/) }),
    );
    expect(() => store.permissionRules.remove(rule.id)).toThrow(
      expect.objectContaining({ name: "StoreError", message: expect.stringMatching(/^deleting the permission rule failed: no such table/) }),
    );
  });

  it("removes a rule once", () => {
    const rule = store.permissionRules.add({ tool: "edit", action: "deny", scope: "global", scopeId: null });
    expect(store.permissionRules.remove(rule.id)).toBe(true);
    expect(store.permissionRules.remove(rule.id)).toBe(false);
    expect(store.permissionRules.all()).toEqual([]);
  });

  it("applies global rules always, session and project rules to their own, filtered by tool, oldest first", () => {
    const add = (tool: string, scope: "global" | "session" | "project", scopeId: number | null) => store.permissionRules.add({ tool, action: "allow", scope, scopeId }).id;
    const g = add("bash", "global", null);
    const s1 = add("bash", "session", 1);
    add("bash", "session", 2);
    const p1 = add("read", "project", 1);
    add("read", "project", 2);
    expect(store.permissionRules.applicable().map((r) => r.id)).toEqual([g]);
    expect(store.permissionRules.applicable({ sessionId: 1, projectId: 1 }).map((r) => r.id)).toEqual([g, s1, p1]);
    expect(store.permissionRules.applicable({ tool: "read", sessionId: 1, projectId: 1 }).map((r) => r.id)).toEqual([p1]);
    // A session id is not a project id, nor the other way round.
    expect(store.permissionRules.applicable({ projectId: 1 }).map((r) => r.id)).toEqual([g, p1]);
  });
});
