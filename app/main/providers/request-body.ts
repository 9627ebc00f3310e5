// The JSON text of a request body, built without serializing the whole transcript on every turn.
// The request builders return the same item objects, request after request, for everything but
// the last turn's messages (loop/incremental-conversion.ts). So the text of the body's long list
// (messages, input) is kept per list (keyed on its second item: the first may be a system message
// that lists of several sessions share) with the items it was made of: the next request reuses
// the text of its longest prefix of the same items and serializes only what follows. The kept
// text is only ever extended (by the items that stayed the same from one request to the next),
// never cut: cutting a string made by concatenation copies all of it (V8 flattens it first), which
// would cost every request, and every slice of a request prepared in slices
// (sessions/request-preparation.ts), time in proportion to the whole transcript. Items must not
// change once serialized: the builders never change an item they returned. The text equals
// JSON.stringify(params) but for the order of keys (the list comes first).
interface Joined {
  items: object[];
  /** Each item's JSON. */
  texts: string[];
  /** The text of the first `settledCount` items, joined; only ever extended while items stay. */
  settled: string;
  settledCount: number;
}

const joinedByKeyItem = new WeakMap<object, Joined>();
const joinTwo = (a: string, b: string): string => (a === "" ? b : b === "" ? a : `${a},${b}`);

function joinedItems(list: readonly object[]): string {
  if (list.length === 0) return "";
  const key = list[list.length > 1 ? 1 : 0]!;
  let joined = joinedByKeyItem.get(key);
  if (!joined) joinedByKeyItem.set(key, (joined = { items: [], texts: [], settled: "", settledCount: 0 }));
  // The list is append-only but for its last items, which the builder makes anew each request.
  let same = Math.min(joined.items.length, list.length);
  while (same > 0 && list[same - 1] !== joined.items[same - 1]) same--;
  joined.items.length = same;
  joined.texts.length = same;
  // A list that is not the last one grown (truncated, forked): its settled text is made again.
  if (joined.settledCount > same) {
    joined.settled = joined.texts.join(",");
    joined.settledCount = same;
  }
  // What stayed the same since the last request is settled now.
  joined.settled = joinTwo(joined.settled, joined.texts.slice(joined.settledCount, same).join(","));
  joined.settledCount = same;
  for (let i = same; i < list.length; i++) {
    joined.items.push(list[i]!);
    joined.texts.push(JSON.stringify(list[i]));
  }
  return joinTwo(joined.settled, joined.texts.slice(same).join(","));
}

export function jsonRequestBody<P extends object>(params: P, listKey: keyof P & string): string {
  const list = params[listKey] as unknown as readonly object[];
  const rest = JSON.stringify({ ...params, [listKey]: undefined });
  const head = `{${JSON.stringify(listKey)}:[${joinedItems(list)}]`;
  return rest === "{}" ? `${head}}` : `${head},${rest.slice(1)}`;
}

/** What the SDKs send as is: a body given as text, with its content type (their RequestOptions). */
export function sendAsJson(body: string): { body: string; headers: Record<string, string> } {
  return { body, headers: { "content-type": "application/json" } };
}
