// Output for the terminal card, written so that a final line break is held back until more output
// comes: the cursor then never sits on an empty row below the output, and a box sized to the
// output's lines shows all of them (a one-line "done-4" takes one row). Pure; never throws.

/** What to write now and the line break held back (to write before the next output). */
export function holdFinalBreak(held: string, text: string): { write: string; held: string } {
  const all = held + text;
  const end = /\r?\n$/.exec(all);
  return end ? { write: all.slice(0, all.length - end[0].length), held: end[0] } : { write: all, held: "" };
}
