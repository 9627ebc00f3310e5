// Parsers of the git output the checkpoint store reads: `git status --porcelain=v2 -z` (what
// differs from the last capture), `git diff-tree -r -z --raw` (what differs between two stored
// trees) and `git ls-tree -r -z` (every file of a tree). Pure over bytes: paths stay Buffers (any
// bytes a file name may hold); they never throw on odd input (a record they cannot read is
// skipped). The output may list 100,000 files (one command can create them): the parsers run in
// slices (slices.ts), never in one piece.
import { Buffer } from "node:buffer";
import { pathKey } from "./path-bytes.ts";
import type { ChangeStatus, TreeDiffEntry, TreeEntry } from "./shadow-types.ts";
import { Slices } from "./slices.ts";

export interface StatusCandidate {
  path: Buffer;
  /** Whether the last capture had this path. */
  inHead: boolean;
}

/** Calls `each` with every NUL-terminated record of `data` (views), in slices. */
async function eachRecord(data: Buffer, slices: Slices, each: (record: Buffer) => void): Promise<void> {
  let start = 0;
  while (start < data.length) {
    let end = data.indexOf(0, start);
    if (end === -1) end = data.length;
    each(data.subarray(start, end));
    start = end + 1;
    if (slices.due()) await slices.yield();
  }
}

/** `git status --porcelain=v2 -z` entries, by path key. Nested repositories ("dir/") are left out. */
export async function parseStatus(data: Buffer, slices = new Slices()): Promise<Map<string, StatusCandidate>> {
  const out = new Map<string, StatusCandidate>();
  await eachRecord(data, slices, (record) => {
    const kind = record[0];
    let path: Buffer;
    let inHead = false;
    if (kind === 0x3f /* ? */) path = record.subarray(2);
    else if (kind === 0x31 /* 1 */) {
      // "1 XY sub mH mI mW hH hI path": the path follows the eighth space; mH (the mode in HEAD,
      // 000000 when the last capture did not have the path) is the fourth field.
      const spaces: number[] = [];
      for (let at = record.indexOf(0x20); at !== -1 && spaces.length < 8; at = record.indexOf(0x20, at + 1)) spaces.push(at);
      if (spaces.length < 8) return;
      inHead = record.toString("latin1", spaces[2]! + 1, spaces[3]) !== "000000";
      path = record.subarray(spaces[7]! + 1);
    } else return;
    if (path.length === 0 || path[path.length - 1] === 0x2f) return;
    const copy = Buffer.from(path);
    out.set(pathKey(copy), { path: copy, inHead });
  });
  return out;
}

/** `git diff-tree -r -z --raw` records: ":oldmode newmode oldblob newblob S\0path\0". */
export async function parseRawDiff(data: Buffer, slices = new Slices()): Promise<TreeDiffEntry[]> {
  const out: TreeDiffEntry[] = [];
  let head: string | null = null;
  await eachRecord(data, slices, (record) => {
    if (head === null) {
      // A tree id line (diff-tree with one commit) is not a record head: skipped.
      if (record[0] === 0x3a /* : */) head = record.toString("latin1", 1);
      return;
    }
    const [oldMode = "", newMode = "", oldBlob = "", newBlob = "", letter = ""] = head.split(" ");
    head = null;
    if (oldMode === "160000" || newMode === "160000") return;
    const status: ChangeStatus = letter.startsWith("A") ? "added" : letter.startsWith("D") ? "deleted" : "modified";
    out.push({ path: Buffer.from(record), status, oldMode, newMode, oldBlob, newBlob });
  });
  return out;
}

/** `git ls-tree -r -z --full-tree` records ("mode type blob\tpath"): every blob, by path key. */
export async function parseTree(data: Buffer, slices = new Slices()): Promise<Map<string, TreeEntry & { path: Buffer }>> {
  const files = new Map<string, TreeEntry & { path: Buffer }>();
  await eachRecord(data, slices, (record) => {
    const tab = record.indexOf(0x09);
    if (tab === -1) return;
    const [mode = "", type = "", blob = ""] = record.toString("latin1", 0, tab).split(" ");
    if (type !== "blob") return;
    const path = Buffer.from(record.subarray(tab + 1));
    files.set(pathKey(path), { mode, blob, path });
  });
  return files;
}
