// Application settings (app/main/store/settings.ts): JSON values under keys; undefined deletes.
import { describe, expect, it } from "vitest";
import { StoreError, type SessionStore } from "../../app/main/store/index.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;
freshStoreForEachTest((opened) => (store = opened));

describe("settings", () => {
  it("a stored null is a value, not a missing key; a rewrite replaces the value", () => {
    store.settings.set("proxy", null);
    expect(store.settings.get("proxy", "fallback")).toBeNull();
    expect(store.settings.get("absent", "fallback")).toBe("fallback");
    store.settings.set("n", 1);
    store.settings.set("n", [2, { three: 3 }]);
    expect(store.settings.get("n")).toEqual([2, { three: 3 }]);
    expect(store.db.prepare("SELECT count(*) FROM settings WHERE key = 'n'").pluck().get()).toBe(1);
  });

  it("deletes a key (twice is harmless), and lists every key in order", () => {
    store.settings.set("b", "two");
    store.settings.set("a", "one");
    store.settings.set("c", false);
    store.settings.delete("b");
    store.settings.delete("b");
    expect(store.settings.all()).toEqual({ a: "one", c: false });
    expect(Object.keys(store.settings.all())).toEqual(["a", "c"]);
  });

  it("a value JSON cannot hold is refused with a StoreError naming the key, and nothing is stored", () => {
    const error = (() => {
      try {
        store.settings.set("big", 10n);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toMatch(/^saving the setting "big" failed: /);
    expect(store.settings.get("big")).toBeUndefined();
  });
});

describe("settings when the database refuses", () => {
  it("a delete that fails is a StoreError naming the key", () => {
    store.db.exec("DROP TABLE settings");
    expect(() => store.settings.delete("theme")).toThrow(expect.objectContaining({ name: "StoreError", message: expect.stringMatching(/^deleting the setting "theme" failed: /) }));
  });
});
