// rule-migration.ts driven directly: which bash rules saved under the old text meaning get a note,
// what the note says for allow and deny rules, that the migration runs once per database and keeps
// notes of other rules, that a note follows its rule only while the pattern is the same, and that
// odd stored data (a note map that is not an object, a settings read that throws) never stops it.
import { describe, expect, it } from "vitest";
import { legacyNote, migrateRules, ruleNote, RULES_FORMAT } from "../../app/main/permissions/rule-migration.ts";
import type { PermissionRule } from "../../app/main/store/index.ts";

const BEFORE = "Saved before commands were judged word by word, when a pattern was text and * matched anything.";

const rule = (id: number, tool: string, pattern: string, action: "allow" | "deny" = "allow"): PermissionRule => ({
  id,
  tool,
  pattern,
  action,
  scope: "project",
  scopeId: 1,
  createdAt: 0,
});

/** Settings kept as JSON text, as the store keeps them; `throwOn` makes reads of a key throw. */
function fakeStore(rules: PermissionRule[], initial: Record<string, unknown> = {}, throwOn?: string) {
  const values = new Map(Object.entries(initial).map(([k, v]) => [k, JSON.stringify(v)]));
  const writes: string[] = [];
  return {
    writes,
    values,
    settings: {
      get<T>(key: string, fallback: T): T {
        if (key === throwOn) throw new Error("the database is locked");
        const v = values.get(key);
        return v === undefined ? fallback : (JSON.parse(v) as T);
      },
      set(key: string, value: unknown) {
        writes.push(key);
        values.set(key, JSON.stringify(value));
      },
    },
    permissionRules: { all: () => rules },
    read: (key: string) => (values.has(key) ? JSON.parse(values.get(key)!) : undefined),
  };
}

describe("legacyNote", () => {
  it("notes nothing for rules of other tools, whatever their pattern", () => {
    for (const tool of ["read", "edit", "write", "mcp", "*", "Bash", "bash "]) expect(legacyNote(rule(1, tool, "rm *x; a"))).toBeUndefined();
  });

  it("notes nothing for a bash pattern whose meaning is the same: plain words, a final lone *, the pattern *", () => {
    for (const pattern of ["npm test", "npm test *", "git status --short", "*", "**", "'a b' c", "a\\*b"]) expect(legacyNote(rule(1, "bash", pattern)), pattern).toBeUndefined();
  });

  it("a * inside a word: an allow rule now allows less, a deny rule matches word by word through wrappers", () => {
    expect(legacyNote(rule(1, "bash", "npm run test:*"))).toBe(`${BEFORE} Now * matches within one word, and a final * any further arguments: this rule allows less than it did.`);
    expect(legacyNote(rule(1, "bash", "rm -rf *foo", "deny"))).toBe(`${BEFORE} It also matches each command word by word now, through wrappers such as sudo or xargs.`);
    // A glob in the first word counts too.
    expect(legacyNote(rule(1, "bash", "np* test"))).toMatch(/allows less than it did/);
  });

  it("a pattern that is not one command: an allow rule allows nothing (with why, said once), a deny rule still denies its text", () => {
    expect(legacyNote(rule(1, "bash", "npm test && npm run build"))).toBe(
      `${BEFORE} Now this rule allows nothing (a rule names one command, and this pattern contains "&"): replace it with one rule per command.`,
    );
    expect(legacyNote(rule(1, "bash", "echo 'unterminated"))).toBe(`${BEFORE} Now this rule allows nothing (it has an unterminated quote): replace it with one rule per command.`);
    expect(legacyNote(rule(1, "bash", "curl * | sh", "deny"))).toBe(`${BEFORE} It still denies any command whose words read as this text.`);
    // An empty pattern is invalid too.
    expect(legacyNote(rule(1, "bash", "   "))).toMatch(/allows nothing \(the pattern is empty\)/);
  });
});

describe("migrateRules", () => {
  it("notes every bash rule whose meaning changed, by id with its pattern, and sets the format once", () => {
    const rules = [rule(1, "bash", "npm test"), rule(2, "bash", "npm run test:*"), rule(3, "read", "src/*"), rule(14, "bash", "a;b", "deny")];
    const store = fakeStore(rules);
    migrateRules(store);
    expect(store.read("permissions.rulesFormat")).toBe(RULES_FORMAT);
    expect(RULES_FORMAT).toBe(2);
    const notes = store.read("permissions.ruleNotes");
    expect(Object.keys(notes).sort()).toEqual(["14", "2"]);
    expect(notes["2"]).toEqual({ pattern: "npm run test:*", note: legacyNote(rules[1]!) });
    expect(notes["14"]).toEqual({ pattern: "a;b", note: legacyNote(rules[3]!) });
    // Notes first, then the format: an interrupted migration runs again.
    expect(store.writes).toEqual(["permissions.ruleNotes", "permissions.rulesFormat"]);

    // Once the format is 2 (or later), nothing is read or written again.
    rules.push(rule(20, "bash", "git *log"));
    migrateRules(store);
    expect(store.writes).toHaveLength(2);
    const later = fakeStore(rules, { "permissions.rulesFormat": 3 });
    migrateRules(later);
    expect(later.writes).toEqual([]);
  });

  it("runs under format 1 or with no format stored, and keeps the notes already there", () => {
    const store = fakeStore([rule(5, "bash", "ls *.ts")], { "permissions.rulesFormat": 1, "permissions.ruleNotes": { "9": { pattern: "x*", note: "kept" } } });
    migrateRules(store);
    expect(store.read("permissions.ruleNotes")).toEqual({ "9": { pattern: "x*", note: "kept" }, "5": { pattern: "ls *.ts", note: legacyNote(rule(5, "bash", "ls *.ts")) } });
    expect(store.read("permissions.rulesFormat")).toBe(2);
  });

  it("starts the note map afresh when what is stored is no map, or cannot be read", () => {
    for (const odd of [null, [{ pattern: "a", note: "b" }], "notes", 42, true]) {
      const store = fakeStore([rule(5, "bash", "ls *.ts")], { "permissions.ruleNotes": odd });
      migrateRules(store);
      expect(Object.keys(store.read("permissions.ruleNotes")), JSON.stringify(odd)).toEqual(["5"]);
    }
    const throwing = fakeStore([rule(5, "bash", "ls *.ts")], {}, "permissions.ruleNotes");
    expect(() => migrateRules(throwing)).not.toThrow();
    expect(Object.keys(throwing.read("permissions.ruleNotes"))).toEqual(["5"]);
    expect(throwing.read("permissions.rulesFormat")).toBe(2);
  });

  it("writes an empty note map when no rule changed meaning", () => {
    const store = fakeStore([rule(1, "bash", "npm test"), rule(2, "edit", "**")]);
    migrateRules(store);
    expect(store.read("permissions.ruleNotes")).toEqual({});
    expect(store.read("permissions.rulesFormat")).toBe(2);
  });
});

describe("ruleNote", () => {
  it("gives a rule its note only while its pattern is the one noted", () => {
    const noted = rule(2, "bash", "npm run test:*");
    const store = fakeStore([noted]);
    migrateRules(store);
    expect(ruleNote(store, noted)).toBe(legacyNote(noted));
    // Edited since (or the id reused by another rule): the note describes something else.
    expect(ruleNote(store, { ...noted, pattern: "npm run test:unit" })).toBeUndefined();
    expect(ruleNote(store, rule(3, "bash", "npm run test:*"))).toBeUndefined();
  });

  it("gives nothing for odd or unreadable notes, and never throws", () => {
    const r = rule(1, "bash", "a*");
    expect(ruleNote(fakeStore([], { "permissions.ruleNotes": ["a"] }), r)).toBeUndefined();
    expect(ruleNote(fakeStore([], { "permissions.ruleNotes": null }), r)).toBeUndefined();
    expect(ruleNote(fakeStore([], {}, "permissions.ruleNotes"), r)).toBeUndefined();
    expect(ruleNote(fakeStore([], { "permissions.ruleNotes": { "1": { pattern: "a*", note: "n" } } }), r)).toBe("n");
    // An entry named like an Object property is no note.
    expect(ruleNote(fakeStore([], { "permissions.ruleNotes": {} }), { ...r, id: "constructor" as unknown as number })).toBeUndefined();
  });
});
