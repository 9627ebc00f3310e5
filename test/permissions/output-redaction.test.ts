// output-redaction.ts driven directly with a scripted scanner (every "tok_" word is a "token",
// every "key_" word a "key") and once with the real rule set: which blocks and strings of a tool's
// output are redacted, how deep details are walked, what the note says and how the counts of the
// content, the details and the tool's own streaming redaction combine. Never throws, and returns
// undefined when nothing was found (the output then stays exactly as it was).
import { describe, expect, it } from "vitest";
import { DEEP_CHECK_NODES, LEFT_OUT_SECRET, LEFT_OUT_UNCHECKED, redactToolOutput, type ToolOutput } from "../../app/main/permissions/output-redaction.ts";
import { scannerFor, type SecretScanner } from "../../app/main/permissions/redaction.ts";

/** Redacts `tok_…` as a token and `key_…` as a key, counting each; records what it was given. */
function scripted() {
  const seen: string[] = [];
  const scanner = {
    redact(text: string) {
      seen.push(text);
      const found: Record<string, number> = {};
      const out = text.replace(/\b(tok|key)_\w+/g, (_m, kind: string) => {
        const name = kind === "tok" ? "token" : "key";
        found[name] = (found[name] ?? 0) + 1;
        return `[REDACTED: ${name}]`;
      });
      return { text: out, found };
    },
  };
  return { scanner: scanner as unknown as SecretScanner, seen };
}

const text = (t: string) => ({ type: "text", text: t });

describe("redactToolOutput", () => {
  it("returns undefined when nothing was found, whatever the output holds", () => {
    const { scanner, seen } = scripted();
    const result: ToolOutput = { content: [text("plain"), { type: "image" }], details: { a: ["b", { c: "d" }], n: 3, nil: null } };
    expect(redactToolOutput(result, scanner)).toBeUndefined();
    expect(seen).toEqual(["plain", "b", "d"]);
    expect(redactToolOutput({ content: [], details: undefined }, scanner)).toBeUndefined();
  });

  it("redacts every text block, keeps other blocks as they are, and adds a note saying what was removed", () => {
    const { scanner } = scripted();
    const image = { type: "image", data: "tok_notscanned", mimeType: "image/png" };
    const result = redactToolOutput({ content: [text("a tok_1 b"), image, text("tok_2 and key_3"), { type: "text", text: 5 as unknown as string }], details: {} }, scanner)!;
    expect(result.content).toEqual([
      text("a [REDACTED: token] b"),
      image,
      text("[REDACTED: token] and [REDACTED: key]"),
      { type: "text", text: 5 },
      text("\n[Lathe redacted 2 tokens, 1 key from this output.]"),
    ]);
    expect(result.content![1]).toBe(image);
    expect(result.details).toEqual({ redactions: { token: 2, key: 1 } });
  });

  it("keeps the other fields of a text block", () => {
    const { scanner } = scripted();
    const result = redactToolOutput({ content: [{ type: "text", text: "tok_a", cacheHint: true } as { type: string; text: string }], details: null }, scanner)!;
    expect(result.content![0]).toEqual({ type: "text", text: "[REDACTED: token]", cacheHint: true });
    // Details that are no object stay as they are, without counts.
    expect(result.details).toBeNull();
  });

  it("redacts every string of the details, in arrays and objects, keeping numbers, booleans and null", () => {
    const { scanner } = scripted();
    const details = { path: "tok_p", list: ["key_1", 2, true, null, { deep: "tok_d" }], n: 1, flag: false, none: null };
    const result = redactToolOutput({ content: [text("clean")], details }, scanner)!;
    expect(result.details).toEqual({
      path: "[REDACTED: token]",
      list: ["[REDACTED: key]", 2, true, null, { deep: "[REDACTED: token]" }],
      n: 1,
      flag: false,
      none: null,
      redactions: { token: 2, key: 1 },
    });
    // The tool's own object is not changed.
    expect(details.path).toBe("tok_p");
    expect(result.content).toEqual([text("clean"), text("\n[Lathe redacted 2 tokens, 1 key from this output.]")]);
  });

  it("redacts details that are a string themselves", () => {
    const { scanner } = scripted();
    const result = redactToolOutput({ content: [], details: "tok_x" }, scanner)!;
    expect(result.details).toBe("[REDACTED: token]");
    expect(result.content).toEqual([text("\n[Lathe redacted 1 token from this output.]")]);
  });

  it("walks details down to strings inside 7 levels of objects and arrays; a deeper part is checked whole and left out when it holds a secret or is too large", () => {
    const { scanner } = scripted();
    const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : levels % 2 ? { x: nest(levels - 1, leaf) } : [nest(levels - 1, leaf)]);
    const at7 = redactToolOutput({ content: [], details: nest(7, "tok_7") }, scanner)!;
    expect(JSON.stringify(at7.details)).toContain("[REDACTED: token]");
    expect(JSON.stringify(at7.details)).not.toContain("tok_7");
    // Deeper: the part below 7 levels is checked whole and replaced by a note (the secret counted).
    const deeper = redactToolOutput({ content: [], details: { a: nest(12, "tok_12"), b: nest(12, "fine") } }, scanner)!;
    const shown = JSON.stringify(deeper.details);
    expect(shown).not.toContain("tok_12");
    expect(shown).toContain(JSON.stringify(LEFT_OUT_SECRET));
    expect(shown).toContain('"fine"');
    expect(deeper.content!.at(-1)).toEqual(text("\n[Lathe redacted 1 token from this output.]"));
    // A secret as a key deep down counts too.
    const keyed = redactToolOutput({ content: [], details: nest(9, { key_name: 1 }) }, scanner)!;
    expect(JSON.stringify(keyed.details)).not.toContain("key_name");
    // Nothing deep holds a secret: the output stays as it is.
    expect(redactToolOutput({ content: [], details: nest(12, "fine") }, scanner)).toBeUndefined();
    // A structure far deeper than that (hostile details) is left out unchecked, at the cost of DEEP_CHECK_NODES values.
    let hostile: unknown = "tok_deep";
    for (let i = 0; i < 100_000; i++) hostile = { x: hostile };
    const left = redactToolOutput({ content: [text("x")], details: hostile }, scanner)!;
    expect(JSON.stringify(left.details).length).toBeLessThan(2000);
    expect(JSON.stringify(left.details)).toContain(JSON.stringify(LEFT_OUT_UNCHECKED));
    expect(left.content).toBeUndefined();
    const wide = redactToolOutput(
      {
        content: [],
        details: nest(
          8,
          Array.from({ length: DEEP_CHECK_NODES + 1 }, () => 1),
        ),
      },
      scanner,
    )!;
    expect(JSON.stringify(wide.details)).toContain(JSON.stringify(LEFT_OUT_UNCHECKED));
  });

  it("checks a deep part of exactly DEEP_CHECK_NODES values whole, one more is too large; deep nulls, undefined and numbers are plain data", () => {
    const { scanner } = scripted();
    const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : { x: nest(levels - 1, leaf) });
    // The part at depth 7 is the array itself: one value, and one per item.
    expect(
      redactToolOutput(
        {
          content: [],
          details: nest(
            7,
            Array.from({ length: DEEP_CHECK_NODES - 1 }, () => 1),
          ),
        },
        scanner,
      ),
    ).toBeUndefined();
    const over = redactToolOutput(
      {
        content: [],
        details: nest(
          7,
          Array.from({ length: DEEP_CHECK_NODES }, () => 1),
        ),
      },
      scanner,
    )!;
    expect(JSON.stringify(over.details)).toContain(JSON.stringify(LEFT_OUT_UNCHECKED));
    const plain = nest(9, { a: null, b: undefined, c: 3, d: true, e: [null, undefined, 0] });
    expect(redactToolOutput({ content: [], details: plain }, scanner)).toBeUndefined();
  });

  it("never scans the tool's own redactions entry, and merges its counts in, the largest of each kind", () => {
    const { scanner, seen } = scripted();
    const result = redactToolOutput({ content: [text("tok_1 tok_2")], details: { redactions: { token: 5, "private key": 1, bogus: "9", tok_name: 1 }, out: "tok_3" } }, scanner)!;
    // The tool's counts are not scanned (their names are kinds, not output).
    expect(seen).toEqual(["tok_1 tok_2", "tok_3"]);
    expect(result.details).toEqual({ redactions: { token: 5, "private key": 1, tok_name: 1 }, out: "[REDACTED: token]" });
    expect(result.content!.at(-1)).toEqual(text("\n[Lathe redacted 5 tokens, 1 private key, 1 tok_name from this output.]"));
  });

  it("notes the tool's streaming redactions even when nothing is left to redact (bash redacted as it streamed)", () => {
    const { scanner } = scripted();
    const details = { exitCode: 0, redactions: { "GitHub token": 1 } };
    const result = redactToolOutput({ content: [text("token=[REDACTED: GitHub token]")], details }, scanner)!;
    expect(result.content).toEqual([text("token=[REDACTED: GitHub token]"), text("\n[Lathe redacted 1 GitHub token from this output.]")]);
    expect(result.details).toEqual({ exitCode: 0, redactions: { "GitHub token": 1 } });
    // Counts that are no numbers, or no object at all, add nothing.
    for (const redactions of [{ a: "1" }, { a: null }, "3", 3, null, [], true])
      expect(redactToolOutput({ content: [text("x")], details: { redactions } }, scanner), JSON.stringify(redactions)).toBeUndefined();
  });

  it("counts a kind where it was seen most, not summed: the content and the details often repeat each other", () => {
    const { scanner } = scripted();
    const more = redactToolOutput({ content: [text("tok_a tok_b tok_c")], details: { stdout: "tok_a" } }, scanner)!;
    expect(more.details).toMatchObject({ redactions: { token: 3 } });
    const fewer = redactToolOutput({ content: [text("tok_a")], details: { a: "tok_a", b: "tok_b", c: "key_c" } }, scanner)!;
    expect(fewer.details).toMatchObject({ redactions: { token: 2, key: 1 } });
    expect(fewer.content!.at(-1)).toEqual(text("\n[Lathe redacted 2 tokens, 1 key from this output.]"));
    const contentOnly = redactToolOutput({ content: [text("key_a"), text("key_b")], details: { n: 1 } }, scanner)!;
    expect(contentOnly.details).toEqual({ n: 1, redactions: { key: 2 } });
  });

  it("redacts real secrets with the real rule set, in the content and in the details", () => {
    const token = `ghp_${"Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc1Vb3N"}`.slice(0, 40);
    const result = redactToolOutput({ content: [text(`export GITHUB_TOKEN=${token}\n`)], details: { stdout: `token ${token} saved` } }, scannerFor([]))!;
    const all = JSON.stringify(result);
    expect(all).not.toContain(token.slice(4, 20));
    expect(result.content![0]).toEqual(text("export GITHUB_TOKEN=[REDACTED: GitHub token]\n"));
    expect(result.content!.at(-1)).toEqual(text("\n[Lathe redacted 1 GitHub token from this output.]"));
    expect(result.details).toMatchObject({ redactions: { "GitHub token": 1 } });
  });
});
