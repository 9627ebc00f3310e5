// The streaming redactor (secret-stream.ts) driven by a scripted finder, so that where each push,
// pause and end cuts, what is held back, scanned, swallowed or passed through unscanned can be
// told exactly: the settled text, the hold and its extension over a secret, the emitted context a
// later scan sees, `verified` text, the control-character note, long pushes taken in pieces, an
// overlong key's body swallowed, and escape sequences mapped back onto the raw text. A few cases
// use the real scanner.
import { describe, expect, it } from "vitest";
import { SecretScanner } from "../../app/main/permissions/redaction.ts";
import type { ControlPositions, SecretSpan } from "../../app/main/permissions/secret-spans.ts";
import { applySpans } from "../../app/main/permissions/secret-spans.ts";
import { SecretStream } from "../../app/main/permissions/secret-stream.ts";

/**
 * Finds `SECRET` followed by digits (kind "s"); `BEGIN` without a later `END` is an open span to
 * the end of the text, `BEGIN...END` a closed one (kind "key"); `TRUNC` is a truncated key of 5
 * characters. Notes control characters (below 32 but tab and line feed, and escape) as the real
 * scanner does. Records every call.
 */
class ScriptedFinder {
  readonly calls: { text: string; from: number }[] = [];
  readonly hold: number;
  constructor(hold: number) {
    this.hold = hold;
  }
  find(text: string, from = 0, controls?: ControlPositions): SecretSpan[] {
    this.calls.push({ text, from });
    if (controls) {
      controls.first = controls.last = -1;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if ((c < 32 && c !== 9 && c !== 10) || c === 127) {
          if (controls.first < 0) controls.first = i;
          controls.last = i;
        }
      }
    }
    const spans: SecretSpan[] = [];
    for (const m of text.matchAll(/SECRET\d*/g)) spans.push({ start: m.index, end: m.index + m[0].length, kind: "s" });
    for (const m of text.matchAll(/TRUNC/g)) spans.push({ start: m.index, end: m.index + 5, kind: "key", truncated: true });
    const begin = text.indexOf("BEGIN");
    if (begin !== -1) {
      const end = text.indexOf("END", begin + 5);
      spans.push(end === -1 ? { start: begin, end: text.length, kind: "key", open: true } : { start: begin, end: end + 3, kind: "key" });
    }
    return spans.sort((a, b) => a.start - b.start).filter((s) => s.end > from);
  }
}

function stream(hold = 10, ansi = false) {
  const finder = new ScriptedFinder(hold);
  return { finder, stream: new SecretStream(finder, ansi ? { ansi: true } : {}) };
}

describe("what a push settles", () => {
  it("emits all but the last `hold` characters, and the rest at the end", () => {
    const { stream: s } = stream(10);
    expect(s.push("abcdefghijklmnopqrstuvwxyz")).toBe("abcdefghijklmnop");
    expect(s.held).toBe(10);
    expect(s.push("0123")).toBe("qrst");
    expect(s.held).toBe(10);
    expect(s.end()).toBe("uvwxyz0123");
    expect(s.held).toBe(0);
    expect(s.end()).toBe("");
    expect(s.flushIdle()).toBe("");
  });

  it("extends the cut over a secret that straddles it, and only then", () => {
    const straddling = stream(10);
    // The cut falls at 24 - 10 = 14, inside SECRET1 (10 to 17).
    expect(straddling.stream.push("0123456789SECRET1 tail..")).toBe("0123456789[REDACTED: s]");
    expect(straddling.stream.end()).toBe(" tail..");
    expect(straddling.stream.found).toEqual({ s: 1 });
    // A secret that begins exactly at the cut is held back whole.
    const atCut = stream(10);
    expect(atCut.stream.push("0123456789SECRET22ab")).toBe("0123456789");
    expect(atCut.stream.end()).toBe("[REDACTED: s]ab");
    // An open key block or a truncated one that begins after the cut does not move it.
    const openAfter = stream(10);
    expect(openAfter.stream.push("abcdefghij BEGIN")).toBe("abcdef");
    const truncatedAfter = stream(10);
    expect(truncatedAfter.stream.push("abcdefghij TRUNC")).toBe("abcdef");
    // Nor one that begins right at it.
    const openAt = stream(10);
    expect(openAt.stream.push("abcdefBEGIN abcd")).toBe("abcdef");
    const truncatedAt = stream(10);
    expect(truncatedAt.stream.push("abcdefTRUNCxyzab")).toBe("abcdef");
    // One that ends exactly at the cut is emitted redacted, and nothing after it.
    const endsAtCut = stream(10);
    expect(endsAtCut.stream.push("SECRET1abcdefghij")).toBe("[REDACTED: s]");
    expect(endsAtCut.stream.end()).toBe("abcdefghij");
  });

  it("a pause emits up to the last blank, but never holds back more than a push would", () => {
    const { stream: s } = stream(10);
    expect(s.push("short one")).toBe("");
    expect(s.flushIdle()).toBe("short ");
    expect(s.held).toBe(3);
    // No blank at all: the pause emits what a push would (everything but `hold`), and ends.
    const blankless = stream(10);
    expect(blankless.stream.push("abcdefghijklmnop".slice(0, 9))).toBe("");
    expect(blankless.stream.flushIdle()).toBe("");
    expect(blankless.stream.push("jklmnopqrstu")).toBe("abcdefghijk");
    expect(blankless.stream.flushIdle()).toBe("");
    // A blank long before the end: the pause emits through the `hold` bound.
    const early = stream(4);
    expect(early.stream.push("ab")).toBe("");
    expect(early.stream.push(" cdefghijk")).toBe(" cdefg".slice(0, 0) + "ab cdefg");
    expect(early.stream.flushIdle()).toBe("");
    expect(early.stream.end()).toBe("hijk");
  });

  it("holds an open key block from its start until its end comes, and emits it at the end", () => {
    const { stream: s } = stream(4);
    expect(s.push("before BEGIN aaaa bbbb cccc")).toBe("before ");
    expect(s.flushIdle()).toBe("");
    expect(s.push(" dddd END after it")).toBe("[REDACTED: key] afte");
    expect(s.end()).toBe("r it");
    const cut = stream(4);
    expect(cut.stream.push("x BEGIN aaaa bbbb")).toBe("x ");
    expect(cut.stream.end()).toBe("[REDACTED: key]");
    expect(cut.stream.found).toEqual({ key: 1 });
  });
});

describe("the context a later scan sees", () => {
  it("is the last 512 characters emitted, whatever the size of the steps", () => {
    for (const hold of [10, 400]) {
      const { finder, stream: s } = stream(hold);
      const text = Array.from({ length: 900 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
      let out = "";
      let all = "";
      for (const size of [3, 100, 700, 50, 20, 600, 5, 30]) {
        finder.calls.length = 0;
        const before = out;
        out += s.push(text.slice(0, size));
        all += text.slice(0, size);
        const call = finder.calls[0]!;
        // What precedes the new text in the scan is exactly the emitted text's last 512 characters.
        expect(call.text.slice(0, call.from), `hold ${hold}, push of ${size}`).toBe(before.slice(-512));
      }
      expect(out + s.end()).toBe(all);
    }
  });
});

describe("text pushed as verified", () => {
  it("is not scanned again, except within `hold` after text that was not", () => {
    const { finder, stream: s } = stream(10);
    expect(s.push("scanned text SEC", false)).toBe("scanne");
    finder.calls.length = 0;
    // The held 10 characters were not verified: the next push is scanned for them, and a secret
    // that straddles the two is found.
    expect(s.push("RET1 verified text", true)).toBe("d text [REDACTED: s] ver");
    expect(finder.calls).toHaveLength(1);
    finder.calls.length = 0;
    // Now only verified text is held: nothing is scanned, and SECRET in it passes as it is.
    expect(s.push(" and SECRET2 verified", true)).toBe("ified text and SECRET");
    expect(finder.calls).toHaveLength(0);
    expect(s.end()).toBe("2 verified");
    expect(finder.calls).toHaveLength(0);
    // Unverified text after verified text is scanned again.
    expect(s.push("SECRET3 x", false) + s.end()).toBe("[REDACTED: s] x");
    expect(finder.calls).toHaveLength(2);
  });
});

describe("control characters", () => {
  it("are noted only when the text a call returned may hold them", () => {
    const { stream: s } = stream(4);
    expect(s.push("plain line\n")).toBe("plain l");
    expect(s.outputHasControls).toBe(false);
    expect(s.push("\x1b[1mbold\n")).toBe("ine\n\x1b[1mb");
    expect(s.outputHasControls).toBe(true);
    // The control character was emitted: the next returned text is plain again.
    expect(s.push("more text")).toBe("old\nmore ");
    expect(s.outputHasControls).toBe(false);
    // A control character still held back does not count until it is returned.
    const held = stream(4).stream;
    expect(held.push("plain text ab\x01cd")).toBe("plain text a");
    expect(held.outputHasControls).toBe(false);
    expect(held.flushIdle()).toBe("");
    expect(held.outputHasControls).toBe(false);
    expect(held.end()).toBe("b\x01cd");
    expect(held.outputHasControls).toBe(true);
    // Nothing returned: no control characters.
    expect(held.end()).toBe("");
    expect(held.outputHasControls).toBe(false);
    // One just before the cut is returned; one right at the cut is not.
    const before = stream(4).stream;
    expect(before.push("plain text \x01abcd")).toBe("plain text \x01");
    expect(before.outputHasControls).toBe(true);
    const atCut = stream(4).stream;
    expect(atCut.push("plain text a\x01bcd")).toBe("plain text a");
    expect(atCut.outputHasControls).toBe(false);
  });

  it("are noted at the very start of the text, at the first held character, and before the first escape", () => {
    expect(new SecretStream(new ScriptedFinder(4)).outputHasControls).toBe(false);
    const atOne = stream(4).stream;
    expect(atOne.push("a\x01bcdefghij")).toBe("a\x01bcdef");
    expect(atOne.outputHasControls).toBe(true);
    // A control character that was held back, first in the next scan's new text.
    const held = stream(4).stream;
    expect(held.push("plain text\x01abc")).toBe("plain text");
    expect(held.outputHasControls).toBe(false);
    expect(held.push("defghij")).toBe("\x01abcdef");
    expect(held.outputHasControls).toBe(true);
    // Nothing returned while a control character waits: none noted.
    expect(held.push("")).toBe("");
    expect(held.outputHasControls).toBe(false);
    const waiting = stream(10).stream;
    expect(waiting.push("ab\x01cdefghijk\x02lmnop")).toBe("ab\x01cdefg");
    expect(waiting.push("")).toBe("");
    expect(waiting.outputHasControls).toBe(false);
    // Raw output: a carriage return before the first escape, the escape held back.
    const raw = stream(8, true).stream;
    expect(raw.push("ab\rcdefghijklmnop\x1b[1m")).toBe("ab\rcdefghijkl");
    expect(raw.outputHasControls).toBe(true);
    // Plain text after coloured text is plain; a carriage return after an escape is not.
    const after = stream(4, true).stream;
    after.push("\x1b[1mbold\x1b[0m and some more text");
    expect(after.push(" plain words here")).toBe("text plain words ");
    expect(after.outputHasControls).toBe(false);
    expect(after.push(" and\r more")).toBe("here and\r ");
    expect(after.outputHasControls).toBe(true);
    // Once the escapes have left the context, a carriage return is still noted.
    after.push(` ${"plain ".repeat(100)}`);
    expect(after.outputHasControls).toBe(false);
    expect(after.push("a\rb cdef")).toBe("ain a\rb ");
    expect(after.outputHasControls).toBe(true);
  });

  it("are not noted again for the rest of an escape sequence whose escape was returned alone", () => {
    const { stream: s } = stream(8, true);
    expect(s.push("\x1b[31mabcd")).toBe("\x1b");
    expect(s.outputHasControls).toBe(true);
    expect(s.end()).toBe("[31mabcd");
    expect(s.outputHasControls).toBe(false);
  });

  it("in verified text that is not scanned are not noted", () => {
    const { stream: s } = stream(4);
    expect(s.push("a\rb plain text", true)).toBe("a\rb plain ");
    expect(s.outputHasControls).toBe(false);
  });
});

describe("long pushes", () => {
  it("are taken in pieces that keep each scan below the bound, with the same output", () => {
    const { finder, stream: s } = stream(100);
    expect(s.pieceLength).toBe(62_000 - 512 - 100);
    const text = "x".repeat(61_388) + "SECRET9" + "y".repeat(70_000);
    const out = s.push(text) + s.end();
    expect(out).toBe("x".repeat(61_388) + "[REDACTED: s]" + "y".repeat(70_000));
    expect(finder.calls.length).toBeGreaterThanOrEqual(3);
    for (const call of finder.calls) expect(call.text.length).toBeLessThanOrEqual(62_000);
    // A push of exactly one piece is one scan.
    const one = stream(100);
    one.stream.push("z".repeat(one.stream.pieceLength));
    expect(one.finder.calls).toHaveLength(1);
    one.stream.push("z".repeat(one.stream.pieceLength + 1));
    expect(one.finder.calls).toHaveLength(3);
    // Whatever the scanner holds back, a piece is at least 8,192 characters.
    expect(stream(60_000).stream.pieceLength).toBe(8_192);
  });
});

describe("an overlong key block", () => {
  it("is cut where it was truncated and the rest of its body swallowed, through its end line", () => {
    const { stream: s } = stream(4);
    const out = s.push("before TRUNC") + s.push("AAAA\nBBBB\n") + s.push("CCCC\n-----END PRIVATE KEY-----\nafter it\n") + s.end();
    expect(out).toBe("before [REDACTED: key]\nafter it\n");
  });

  it("emits what follows its end line in the same push", () => {
    const { stream: s } = stream(4);
    expect(s.push("x TRUNCAAAA\nBBBB\n-----END PRIVATE KEY-----\nafter SECRET6 and the rest")).toBe("x [REDACTED: key]\nafter [REDACTED: s] and the ");
    expect(s.end()).toBe("rest");
  });

  it("stops swallowing at a line that is no key body, and scans it", () => {
    const { stream: s } = stream(4);
    const out = s.push("x TRUNCAAAA\nBBBB\nnot a body line! SECRET3 here\n") + s.end();
    expect(out).toBe("x [REDACTED: key]not a body line! [REDACTED: s] here\n");
  });

  it("swallows an unfinished body line until it ends, or for good once it is too long", () => {
    const { stream: s } = stream(4);
    expect(s.push("x TRUNCAAAA")).toBe("x [REDACTED: key]");
    expect(s.push("BBBBBBBB")).toBe("");
    expect(s.flushIdle()).toBe("");
    expect(s.held).toBe(12);
    expect(s.push("CCCC\nshown again\n")).toBe("shown ag");
    // A body line longer than 64 KiB without a line break is dropped as it comes.
    const long = stream(4);
    expect(long.stream.push("TRUNC")).toBe("[REDACTED: key]");
    expect(long.stream.push("A".repeat(40_000))).toBe("");
    expect(long.stream.held).toBe(40_000);
    expect(long.stream.push("A".repeat(25_536))).toBe("");
    expect(long.stream.held).toBe(65_536);
    expect(long.stream.push("A")).toBe("");
    expect(long.stream.held).toBe(0);
    // At the end, an unfinished body line is dropped, and the stream is done swallowing.
    const atEnd = stream(4);
    expect(atEnd.stream.push("TRUNCAAAA")).toBe("[REDACTED: key]");
    expect(atEnd.stream.end()).toBe("");
    expect(atEnd.stream.push("later text SECRET4 ok")).toBe("later text [REDACTED: s]");
    // The same with nothing pending when the stream ends: what comes after is no key's body.
    const emptyAtEnd = stream(4);
    expect(emptyAtEnd.stream.push("TRUNC")).toBe("[REDACTED: key]");
    expect(emptyAtEnd.stream.held).toBe(0);
    expect(emptyAtEnd.stream.end()).toBe("");
    expect(emptyAtEnd.stream.push("AAAA\nlater SECRET4 text") + emptyAtEnd.stream.end()).toBe("AAAA\nlater [REDACTED: s] text");
    // A key block truncated where the stream ends: its unfinished line is dropped there too.
    const truncatedAtEnd = stream(100);
    expect(truncatedAtEnd.stream.push("x TRUNCAAAA")).toBe("");
    expect(truncatedAtEnd.stream.end()).toBe("x [REDACTED: key]");
    expect(truncatedAtEnd.stream.held).toBe(0);
    expect(truncatedAtEnd.stream.push("later SECRET5 text")).toBe("");
    expect(truncatedAtEnd.stream.end()).toBe("later [REDACTED: s] text");
  });

  it("found by the real scanner, swallows a body ending with an end line in any case and spacing", () => {
    const scanner = new SecretScanner();
    const body = Array.from({ length: 1100 }, (_, i) => `${"QUJD".repeat(15)}${String(i % 10).repeat(4)}`).join("\n");
    for (const endLine of ["-----END RSA PRIVATE KEY-----", "-----end private key-----"]) {
      const s = scanner.stream();
      const text = `a\n-----BEGIN RSA PRIVATE KEY-----\n${body}\n${endLine}\nb\n`;
      let out = "";
      for (let at = 0; at < text.length; at += 5000) out += s.push(text.slice(at, at + 5000));
      expect(out + s.end()).toBe("a\n[REDACTED: private key]\nb\n");
    }
  });
});

describe("with escape sequences (ansi)", () => {
  it("finds a secret split by colours and maps it back onto the raw text, colours around it kept", () => {
    const { stream: s } = stream(4, true);
    const out = s.push("ok \x1b[1mSEC\x1b[0mRET5\x1b[0m done and more") + s.end();
    expect(out).toBe("ok \x1b[1m[REDACTED: s]\x1b[0m done and more");
  });

  it("only with `ansi`: other text is matched as it is", () => {
    const plain = stream(4);
    expect(plain.stream.push("ok SEC\x1b[1mRET5 done") + plain.stream.end()).toBe("ok SEC\x1b[1mRET5 done");
    const raw = stream(16, true);
    expect(raw.stream.push("ok SEC\x1b[1mRET5 done") + raw.stream.end()).toBe("ok [REDACTED: s] done");
    // An escape right after the first character.
    const second = stream(16, true);
    expect(second.stream.push("a\x1b[1mSEC\x1b[0mRET5 done") + second.stream.end()).toBe("a\x1b[1m[REDACTED: s] done");
  });

  it("scans plain text once as it is, and text with escapes through its visible characters", () => {
    const { finder, stream: s } = stream(4, true);
    s.push("plain SECRET6 text");
    expect(finder.calls.map((c) => c.text)).toEqual(["plain SECRET6 text"]);
    finder.calls.length = 0;
    // A control character that is no escape: scanned once, as it is.
    s.push("a\rb SECRET7 c");
    expect(finder.calls).toHaveLength(1);
    finder.calls.length = 0;
    s.push("x\x1b[31mSEC\x1b[0mRET8 yz");
    // Once as it is, then without the escapes.
    expect(finder.calls).toHaveLength(2);
    expect(finder.calls[1]!.text).not.toContain("\x1b");
    expect(finder.calls[1]!.text).toContain("SECRET8");
    // After escapes, output is searched for one first: plain text is scanned once.
    finder.calls.length = 0;
    s.push(" more plain text");
    expect(finder.calls).toHaveLength(1);
    finder.calls.length = 0;
    s.push(" \x1b[1mSECRET9\x1b[0m");
    expect(finder.calls).toHaveLength(1);
    expect(finder.calls[0]!.text).not.toContain("\x1b");
  });

  it("redacts exactly as whole text does, and notes escapes as control characters, wherever pushes cut", () => {
    const raw = "line one\n\x1b[32mgreen SEC\x1b[1mRET42\x1b[0m\x1b[0m tail\nplain SECRET43 end\n\x1b[0m";
    const expected = "line one\n\x1b[32mgreen [REDACTED: s]\x1b[0m\x1b[0m tail\nplain [REDACTED: s] end\n\x1b[0m";
    for (let cut = 0; cut <= raw.length; cut++) {
      // `hold` covers the longest match in raw characters, escapes included, as the scanner's does.
      for (const hold of [16, 24, 40]) {
        const { stream: s } = stream(hold, true);
        let out = "";
        let controls = false;
        for (const part of [raw.slice(0, cut), raw.slice(cut)]) {
          const got = s.push(part);
          if (got.includes("\x1b")) expect(s.outputHasControls, `cut ${cut}, hold ${hold}`).toBe(true);
          controls ||= s.outputHasControls;
          out += got;
        }
        const last = s.end();
        if (last.includes("\x1b")) expect(s.outputHasControls).toBe(true);
        expect(out + last, `cut ${cut}, hold ${hold}`).toBe(expected);
      }
    }
  });

  it("a secret right after an escape at the end of what was emitted is still redacted", () => {
    const { stream: s } = stream(3, true);
    let out = s.push("abc \x1b[0m");
    out += s.flushIdle();
    out += s.push("SECRET77 x") + s.end();
    expect(out).toBe("abc \x1b[0m[REDACTED: s] x");
  });
});

describe("applySpans", () => {
  it("replaces only the spans that overlap [from, to), counting them", () => {
    const spans = [
      { start: 0, end: 3, kind: "a" },
      { start: 5, end: 8, kind: "b" },
      { start: 10, end: 12, kind: "a" },
    ];
    expect(applySpans("0123456789ab", spans)).toEqual({ text: "[REDACTED: a]34[REDACTED: b]89[REDACTED: a]", found: { a: 2, b: 1 } });
    expect(applySpans("0123456789ab", spans, 3, 10)).toEqual({ text: "34[REDACTED: b]89", found: { b: 1 } });
    expect(applySpans("0123456789ab", spans, 4, 6)).toEqual({ text: "4[REDACTED: b]", found: { b: 1 } });
    expect(applySpans("0123456789ab", [], 2, 5)).toEqual({ text: "234", found: {} });
    const found = { a: 1 };
    applySpans("0123456789ab", spans, 0, 4, found);
    expect(found).toEqual({ a: 2 });
  });
});
