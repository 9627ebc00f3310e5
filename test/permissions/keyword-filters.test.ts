// The keyword filters' exact checks (keyword-filters.ts) at their bounds, one character on either
// side: where the generic rule's operator may stand, the operators of two characters, the `=`
// signs a value may take before it, how far after the operator the value may begin, its length,
// its digit, the 1,024-character bounds; the assignment check's 24 characters before the operator
// and 6 after; and the loop's prefilter (`mayPass`), which answers "pass" wherever the check would
// read at or past its limit. And `isWordChar` for every byte.
import { describe, expect, it } from "vitest";
import { assignmentFollows, digitValueAssigned, FILTER_DIGIT_VALUE, isControlByte, isWordChar, mayPass } from "../../app/main/permissions/keyword-filters.ts";

/** The generic rule's assignment after "key" (its exact shape; a match is kept only with a digit in its value). */
const GENERIC = /^key(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)/i;

describe("isWordChar", () => {
  it("is \\w for every byte", () => {
    for (let c = 0; c < 256; c++) expect(isWordChar(c), `${c}`).toBe(/\w/.test(String.fromCharCode(c)));
  });
});

describe("isControlByte", () => {
  it("is a C0 control but tab and line feed, DEL or the 8-bit CSI", () => {
    const controls: number[] = [];
    for (let c = 0; c < 256; c++) if (isControlByte(c)) controls.push(c);
    expect(controls).toEqual([...Array.from({ length: 32 }, (_, c) => c).filter((c) => c !== 9 && c !== 10), 127, 0x9b]);
  });
});

describe("digitValueAssigned (the generic rule's assignment after a keyword)", () => {
  const at = (text: string) => digitValueAssigned(text, 3);

  it("needs the operator within 23 characters of the keyword", () => {
    expect(at(`key${" ".repeat(23)}=abc1234567 `)).toBe(true);
    expect(at(`key${"x".repeat(23)}=abc1234567 `)).toBe(true);
    expect(at(`key${" ".repeat(24)}=abc1234567 `)).toBe(false);
  });

  it("takes every ASCII blank of \\s before and after the operator, and no ~ in the value", () => {
    for (const blank of [" ", "\t", "\n", "\r", "\v", "\f"]) {
      for (const text of [`key${blank}= abc1234567 `, `key =${blank}abc1234567 `]) {
        expect(at(text), JSON.stringify(text)).toBe(true);
        expect(GENERIC.test(text), JSON.stringify(text)).toBe(true);
      }
    }
    expect(at("key = ~abc1234567 ")).toBe(false);
    expect(GENERIC.test("key = ~abc1234567 ")).toBe(false);
  });

  it("takes || and ?= as operators, not | or ? alone", () => {
    for (const [op, kept] of [
      ["||", true],
      ["?=", true],
      ["|", false],
      ["?", false],
      ["|=", false],
      ["?|", false],
      [":::=", true],
      [",", true],
    ] as const) {
      const text = `key ${op} abc1234567 `;
      expect(at(text), op).toBe(kept);
      expect(GENERIC.test(text), op).toBe(kept);
    }
  });

  it("lets the value begin at most 9 characters after the operator's first, counting = signs it takes", () => {
    expect(at(`key:::=${" ".repeat(5)}abc1234567 `)).toBe(true);
    expect(at(`key:::=${" ".repeat(6)}abc1234567 `)).toBe(false);
    // = signs just before the value are its own: "==abc12345" is 10 characters.
    expect(at("key:==abc12345 ")).toBe(true);
    expect(GENERIC.test("key:==abc12345 ")).toBe(true);
    expect(at("key:abc12345 ")).toBe(false);
    // The operator's own = is not the value's.
    expect(at("key=abc123456 ")).toBe(false);
    expect(GENERIC.test("key=abc123456 ")).toBe(false);
    expect(at("key=abc1234567 ")).toBe(true);
  });

  it("needs 10 value characters with a digit, 0 included, and stops looking after 1,024 of them", () => {
    expect(at("key=abcdefghi0 ")).toBe(true);
    expect(at("key=abcdefghij ")).toBe(false);
    expect(at(`key=${"a".repeat(1025)}!`)).toBe(true);
    expect(at(`key=${"a".repeat(1024)}!`)).toBe(false);
    // A value cut by the text's end, or a first character that is none.
    expect(at("key=abc12")).toBe(false);
    expect(at("key= !abc1234567")).toBe(false);
  });

  it("stops looking for the value after 1,024 operator characters and blanks, wherever the keyword is", () => {
    expect(at(`key=${" ".repeat(1023)}!`)).toBe(false);
    expect(at(`key=${" ".repeat(1024)}!`)).toBe(true);
    // Blanks to the text's end: no value, however long they are, wherever the keyword is.
    expect(at(`key=${" ".repeat(1023)}`)).toBe(false);
    expect(digitValueAssigned(`${"x".repeat(1100)}key =`, 1103)).toBe(false);
    expect(at("key = !")).toBe(false);
    const far = `${"x".repeat(1100)}key = !`;
    expect(digitValueAssigned(far, 1103)).toBe(false);
    expect(at("key =")).toBe(false);
  });
});

describe("mayPass with the digit-value filter (the loop's prefilter)", () => {
  const pass = (text: string, limit: number) => mayPass(text, 3, limit, FILTER_DIGIT_VALUE);

  it("checks when the operator's place lies before its limit, and passes where the check would read past it", () => {
    const gap = `key${"x".repeat(30)}`;
    expect(pass(gap, 27)).toBe(false);
    expect(pass(gap, 26)).toBe(true);
    // An operator of two characters cut by the limit.
    expect(pass(`key${" ".repeat(23)}|x`, 27)).toBe(true);
    expect(pass(`key${" ".repeat(23)}|x`, 28)).toBe(false);
    // Blanks after the operator up to the limit.
    expect(pass(`key${" ".repeat(20)}=   !`, 27)).toBe(true);
    expect(pass(`key${" ".repeat(20)}=   !`, 28)).toBe(false);
    // A value cut by the limit.
    expect(pass(`key${" ".repeat(18)}=abcd1!`, 27)).toBe(true);
    expect(pass(`key${" ".repeat(18)}=abcd1!`, 28)).toBe(false);
  });
});

describe("assignmentFollows (an operator, then a value of 5 token characters)", () => {
  const at = (text: string) => assignmentFollows(text, 3);

  it("needs the operator within 24 characters of word characters, blanks and quotes", () => {
    expect(at(`key${"x".repeat(23)}=abcde`)).toBe(true);
    expect(at(`key${"x".repeat(24)}=abcde`)).toBe(false);
    expect(at(`key${"x".repeat(25)}=abcde`)).toBe(false);
    expect(at(`key${"x".repeat(24)}abcdef`)).toBe(false);
  });

  it("takes up to 6 quotes, blanks and = signs after the operator, then 5 token characters", () => {
    for (const blank of [" ", "\t", "\n", "\r", "'", '"', "`", "="]) expect(at(`key=${blank}abcde`), JSON.stringify(blank)).toBe(true);
    for (const blank of ["\r", "\v", "\f", "'"]) expect(at(`key${blank}=abcde`), JSON.stringify(blank)).toBe(true);
    expect(at(`key=${" ".repeat(6)}abcde`)).toBe(true);
    expect(at(`key=${" ".repeat(7)}abcde`)).toBe(false);
    expect(at("key=abcd!")).toBe(false);
    expect(at("key=ab!")).toBe(false);
    expect(at("key=")).toBe(false);
  });
});
