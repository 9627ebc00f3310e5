// Rules saved before bash rules were matched word by word (rules format 1, where a pattern was
// text and `*` matched anything, across words) keep their text; what changed is what they mean.
// At the first start of this version each stored bash rule whose meaning changed gets a note
// (kept in settings under "permissions.ruleNotes", with the pattern it describes, so a rule that
// is edited or an id that is reused never shows another rule's note), and the format is set to 2.
// The rules screen shows every rule's meaning now (describeRule) and the note. Never throws on
// odd stored data: an unreadable note map is started afresh.
import type { PermissionRule } from "../store/index.ts";
import { parseBashPattern } from "./bash-rules.ts";

export const RULES_FORMAT = 2;
const FORMAT_KEY = "permissions.rulesFormat";
const NOTES_KEY = "permissions.ruleNotes";

type Notes = Record<string, { pattern: string; note: string }>;

interface RuleStore {
  settings: { get<T>(key: string, fallback: T): T; set(key: string, value: unknown): void };
  permissionRules: { all(): PermissionRule[] };
}

/** What changed for a rule saved under format 1, or undefined when its meaning is the same. */
export function legacyNote(rule: Pick<PermissionRule, "tool" | "pattern" | "action">): string | undefined {
  if (rule.tool !== "bash") return undefined;
  const p = parseBashPattern(rule.pattern);
  const before = "Saved before commands were judged word by word, when a pattern was text and * matched anything.";
  if (p.invalid) {
    return rule.action === "allow"
      ? `${before} Now this rule allows nothing (${p.invalid}): replace it with one rule per command.`
      : `${before} It still denies any command whose words read as this text.`;
  }
  if (!p.any && p.globs.some(Boolean)) {
    return rule.action === "allow"
      ? `${before} Now * matches within one word, and a final * any further arguments: this rule allows less than it did.`
      : `${before} It also matches each command word by word now, through wrappers such as sudo or xargs.`;
  }
  return undefined;
}

/** Runs once per database: notes the rules whose meaning changed. */
export function migrateRules(store: RuleStore): void {
  if (store.settings.get<number>(FORMAT_KEY, 1) >= RULES_FORMAT) return;
  const notes = readNotes(store);
  for (const rule of store.permissionRules.all()) {
    const note = legacyNote(rule);
    if (note) notes[String(rule.id)] = { pattern: rule.pattern, note };
  }
  store.settings.set(NOTES_KEY, notes);
  store.settings.set(FORMAT_KEY, RULES_FORMAT);
}

/** The migration note of a rule, if it has one and it still describes this rule. */
export function ruleNote(store: RuleStore, rule: PermissionRule): string | undefined {
  const entry = readNotes(store)[String(rule.id)];
  return entry && entry.pattern === rule.pattern ? entry.note : undefined;
}

function readNotes(store: RuleStore): Notes {
  try {
    const notes = store.settings.get<unknown>(NOTES_KEY, {});
    return notes !== null && typeof notes === "object" && !Array.isArray(notes) ? (notes as Notes) : {};
  } catch {
    return {};
  }
}
