// A fixed search corpus (seeded, so every run builds the same messages) and the queries the
// search tests run over it. test/store/fixtures/search-expected.json holds what the search gave
// on this corpus before exact-first matching (recorded with the prefix-always implementation):
// for each query, the first two pages (10 hits each) as typed and with a trailing space (the exact
// form), each hit as "session/position/role snippet" with the matches in «».
import type { AgentMessage } from "../../app/shared/agent-types.ts";
import type { SessionStore } from "../../app/main/store/index.ts";
import { assistant, result, user, call } from "./helpers.ts";

const WORDS = (
  "function functions functional functionality fun funnel test tests testing tested error errors value values " +
  "config configure configuration build builder building the a to of and in is for async await module modules " +
  "path paths pathname return returns returned type types typed typescript import imports export exports"
).split(" ");
const RARE = ["zebrafish", "quokka", "axolotl", "narwhal", "pangolin", "okapi", "tapir", "fossa"];

export const CORPUS_QUERIES = [
  "function",
  "functio",
  "fun",
  "test",
  "tests",
  "the",
  "error value",
  "config",
  "configur",
  "path",
  "zebrafish",
  "quok",
  "axolotl function",
  "type",
  "typescr",
  "module path",
  "narwhal okapi",
  "ta",
  "returned",
  "nonexistentword",
];

/** Builds the corpus: 12 sessions of 60 messages in 2 projects; returns the session ids. */
export function buildSearchCorpus(store: SessionStore): number[] {
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const text = (words: number) => Array.from({ length: words }, () => (random() < 0.08 ? pick(RARE) : pick(WORDS))).join(" ");
  const projects = [store.openProject("/corpus/one"), store.openProject("/corpus/two")];
  const ids: number[] = [];
  for (let s = 0; s < 12; s++) {
    const session = store.createSession({ projectId: projects[s % 2]!.id });
    const messages: AgentMessage[] = [user(text(12))];
    let n = 0;
    while (messages.length < 60) {
      const id = `c${s}-${n++}`;
      messages.push(assistant(text(10), random() < 0.5 ? [call(id, "read", { path: "x" })] : []));
      const last = messages[messages.length - 1]!;
      if (last.role === "assistant" && last.content.some((b) => b.type === "toolCall")) messages.push(result(id, "read", text(15)));
      else messages.push(user(text(8)));
    }
    store.appendMessages(session.id, messages.slice(0, 60));
    ids.push(session.id);
  }
  return ids;
}
