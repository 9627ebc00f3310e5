// The value count of a streaming JSON text (app/main/providers/json-value-count.ts): structure
// outside strings only, whatever the pieces' boundaries (inside a string, an escape, a quote).
import { expect, it } from "vitest";
import { JsonValueCount } from "../../app/main/providers/json-value-count.ts";

const countOf = (pieces: string[]) => {
  const counter = new JsonValueCount();
  for (const piece of pieces) counter.add(piece);
  return counter.count;
};

it("counts commas, colons and opening brackets outside strings", () => {
  expect(countOf(['{"a":1,"b":[1,2,{"c":null}]}'])).toBe(9);
  expect(countOf(["[]"])).toBe(1);
  expect(countOf(["1"])).toBe(0);
  expect(countOf([""])).toBe(0);
});

it("skips strings, escaped quotes and backslashes, split anywhere between pieces", () => {
  const text = '{"s":"a,b:[{\\",\\\\","x":"y","t":[1]}';
  expect(JSON.parse(text)).toEqual({ s: 'a,b:[{",\\', x: "y", t: [1] });
  // Outside strings: { : , : , : [
  const whole = countOf([text]);
  expect(whole).toBe(7);
  for (let cut = 0; cut <= text.length; cut++) expect(countOf([text.slice(0, cut), text.slice(cut)])).toBe(whole);
  expect(countOf(text.split(""))).toBe(whole);
});
