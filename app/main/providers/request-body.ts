// The JSON text of a request body, built without serializing the whole transcript on every turn.
// The request builders return the same item objects, request after request, for everything but
// the last turn's messages (loop/incremental-conversion.ts). So the text of the body's long list
// (messages, input) is kept per list (keyed on its second item: the first may be a system message
// that lists of several sessions share) with the items it was made of: the
// next request reuses the text of its longest prefix of the same items (a slice, no copy) and
// serializes only what follows. Items must not change once serialized: the builders never change
// an item they returned. The text equals JSON.stringify(params) but for the order of keys (the
// list comes first).
interface Joined {
  items: object[];
  /** Where the text of each item ends in `text`. */
  ends: number[];
  text: string;
}

const joinedByKeyItem = new WeakMap<object, Joined>();

function joinedItems(list: readonly object[]): string {
  if (list.length === 0) return "";
  const key = list[list.length > 1 ? 1 : 0]!;
  let joined = joinedByKeyItem.get(key);
  if (!joined) joinedByKeyItem.set(key, (joined = { items: [], ends: [], text: "" }));
  // The list is append-only but for its last items, which the builder makes anew each request.
  let same = Math.min(joined.items.length, list.length);
  while (same > 0 && list[same - 1] !== joined.items[same - 1]) same--;
  let text = same === 0 ? "" : joined.text.slice(0, joined.ends[same - 1]);
  joined.items.length = same;
  joined.ends.length = same;
  for (let i = same; i < list.length; i++) {
    const json = JSON.stringify(list[i]);
    text = i === 0 ? json : `${text},${json}`;
    joined.items.push(list[i]!);
    joined.ends.push(text.length);
  }
  joined.text = text;
  return text;
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
