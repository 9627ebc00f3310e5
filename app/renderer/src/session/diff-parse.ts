// Reads a unified diff as the diff view shows it: files, hunks with old and new line numbers, and
// notes (Lathe's "diff too large" and "cut" lines, "\ No newline at end of file", any other text).
// Headers that say nothing to a person (`Index:`, `=====`, `diff --git`, `index abc..def`) are
// dropped. Accepts what the main process sends (bounded, with notes), the argument previews of
// diff-text.ts (`@@ edit @@` pieces without line numbers) and older stored diffs. Pure; never throws.

export type DiffLineKind = "context" | "add" | "del" | "note";

export interface DiffLine {
  kind: DiffLineKind;
  /** The line without its +, - or space. */
  text: string;
  oldLine: number | null;
  newLine: number | null;
}

export interface DiffHunk {
  lines: DiffLine[];
}

export interface DiffFile {
  /** The file's path (the new name; the old one when deleted), without a/ and b/. */
  path: string;
  hunks: DiffHunk[];
  added: number;
  removed: number;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const NOISE = /^(?:Index: |={10,}$|diff --git |index [0-9a-f]+\.\.[0-9a-f]+|new file mode |deleted file mode |similarity index |rename (?:from|to) )/;

function stripPrefix(name: string): string {
  const bare = name.replace(/\t.*$/, "").trim();
  return /^[ab]\//.test(bare) ? bare.slice(2) : bare;
}

export function parseDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let hunk: DiffHunk | null = null;
  let oldNo: number | null = null;
  let newNo: number | null = null;
  let oldName: string | null = null;
  const lines = text.replace(/\n$/, "").split("\n");
  const ensureFile = (): DiffFile => {
    if (!file) {
      file = { path: "", hunks: [], added: 0, removed: 0 };
      files.push(file);
    }
    return file;
  };
  const ensureHunk = (): DiffHunk => {
    if (!hunk) {
      hunk = { lines: [] };
      ensureFile().hunks.push(hunk);
    }
    return hunk;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (NOISE.test(line)) continue;
    // A file header pair; inside a hunk only when a numbered hunk header follows (else it is "-- x", "++ y" content).
    if (line.startsWith("--- ") && (lines[i + 1]?.startsWith("+++ ") ?? false) && (hunk === null || HUNK.test(lines[i + 2] ?? ""))) {
      oldName = stripPrefix(line.slice(4));
      continue;
    }
    if (line.startsWith("+++ ") && (hunk === null || HUNK.test(lines[i + 1] ?? "") || oldName !== null)) {
      const newName = stripPrefix(line.slice(4));
      file = { path: newName === "/dev/null" && oldName ? oldName : newName, hunks: [], added: 0, removed: 0 };
      files.push(file);
      hunk = null;
      oldName = null;
      continue;
    }
    const header = HUNK.exec(line);
    if (header) {
      oldNo = Number(header[1]);
      newNo = Number(header[3]);
      // A side with no lines names the line before it.
      if (header[2] === "0") oldNo++;
      if (header[4] === "0") newNo++;
      hunk = { lines: [] };
      ensureFile().hunks.push(hunk);
      continue;
    }
    if (line.startsWith("@@")) {
      // Lathe's notes ("diff too large", "cut", "more lines not shown") and preview pieces.
      const note = line.replace(/^@@\s*/, "").replace(/\s*@@$/, "");
      if (note === "edit") {
        hunk = { lines: [] };
        ensureFile().hunks.push(hunk);
        oldNo = newNo = null;
      } else {
        ensureHunk().lines.push({ kind: "note", text: note, oldLine: null, newLine: null });
      }
      continue;
    }
    const h = ensureHunk();
    const f = ensureFile();
    const sign = line[0];
    if (sign === "+") {
      h.lines.push({ kind: "add", text: line.slice(1), oldLine: null, newLine: newNo });
      if (newNo !== null) newNo++;
      f.added++;
    } else if (sign === "-") {
      h.lines.push({ kind: "del", text: line.slice(1), oldLine: oldNo, newLine: null });
      if (oldNo !== null) oldNo++;
      f.removed++;
    } else if (sign === " " || (line === "" && oldNo !== null)) {
      h.lines.push({ kind: "context", text: line.slice(1), oldLine: oldNo, newLine: newNo });
      if (oldNo !== null) oldNo++;
      if (newNo !== null) newNo++;
    } else if (sign === "\\") {
      h.lines.push({ kind: "note", text: line.slice(1).trim(), oldLine: null, newLine: null });
    } else {
      h.lines.push({ kind: "note", text: line, oldLine: null, newLine: null });
    }
  }
  return files;
}

/** "+3 −1" counts of a diff, and the files it names. */
export function diffStats(text: string): { files: string[]; added: number; removed: number } {
  const files = parseDiff(text);
  return {
    files: files.map((f) => f.path).filter(Boolean),
    added: files.reduce((n, f) => n + f.added, 0),
    removed: files.reduce((n, f) => n + f.removed, 0),
  };
}

/** One row of a side-by-side view: the old line on the left, the new on the right. */
export interface SplitRow {
  left: DiffLine | null;
  right: DiffLine | null;
  /** A note spans both sides. */
  note?: DiffLine;
}

/** Pairs removed and added lines of a hunk: each run of removals with the additions after it. */
export function splitRows(hunk: DiffHunk): SplitRow[] {
  const rows: SplitRow[] = [];
  let dels: DiffLine[] = [];
  let adds: DiffLine[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) rows.push({ left: dels[i] ?? null, right: adds[i] ?? null });
    dels = [];
    adds = [];
  };
  for (const line of hunk.lines) {
    if (line.kind === "del") {
      if (adds.length > 0) flush();
      dels.push(line);
    } else if (line.kind === "add") adds.push(line);
    else {
      flush();
      rows.push(line.kind === "note" ? { left: null, right: null, note: line } : { left: line, right: line });
    }
  }
  flush();
  return rows;
}
