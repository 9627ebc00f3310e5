// Parsers of the git output the checkpoint store reads: `git status --porcelain=v2 -z` (what
// differs from the last capture) and `git diff-tree -r -z --raw` (what differs between two stored
// trees). Pure functions over bytes: paths stay Buffers (any bytes a file name may hold); they
// never throw on odd input (a record they cannot read is skipped).
import { Buffer } from "node:buffer";
import { pathKey, splitNul } from "./path-bytes.ts";
import type { ChangeStatus, TreeDiffEntry } from "./shadow-types.ts";

export interface StatusCandidate {
  path: Buffer;
  /** Whether the last capture had this path. */
  inHead: boolean;
}

/** `git status --porcelain=v2 -z` entries, by path key. Nested repositories ("dir/") are left out. */
export function parseStatus(data: Buffer): Map<string, StatusCandidate> {
  const out = new Map<string, StatusCandidate>();
  for (const record of splitNul(data)) {
    const kind = record[0];
    let path: Buffer;
    let inHead = false;
    if (kind === 0x3f /* ? */) path = record.subarray(2);
    else if (kind === 0x31 /* 1 */) {
      // "1 XY sub mH mI mW hH hI path": the path follows the eighth space.
      let at = 0;
      for (let n = 0; n < 8 && at !== -1; n++) at = record.indexOf(0x20, at + (n === 0 ? 0 : 1));
      if (at === -1) continue;
      const fields = record.subarray(0, at).toString("utf8").split(" ");
      inHead = fields[3] !== "000000";
      path = record.subarray(at + 1);
    } else continue;
    if (path.length === 0 || path[path.length - 1] === 0x2f) continue;
    const copy = Buffer.from(path);
    out.set(pathKey(copy), { path: copy, inHead });
  }
  return out;
}

/** `git diff-tree -r -z --raw` records: ":oldmode newmode oldblob newblob S\0path\0". */
export function parseRawDiff(data: Buffer): TreeDiffEntry[] {
  const parts = splitNul(data);
  const out: TreeDiffEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const head = parts[i]!.toString("utf8");
    if (!head.startsWith(":")) {
      i -= 1; // a tree id line (diff-tree with one commit): skip one piece
      continue;
    }
    const [oldMode = "", newMode = "", oldBlob = "", newBlob = "", letter = ""] = head.slice(1).split(" ");
    if (oldMode === "160000" || newMode === "160000") continue;
    const status: ChangeStatus = letter.startsWith("A") ? "added" : letter.startsWith("D") ? "deleted" : "modified";
    out.push({ path: Buffer.from(parts[i + 1]!), status, oldMode, newMode, oldBlob, newBlob });
  }
  return out;
}
