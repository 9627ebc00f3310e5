// Writes a checkpoint's commit object into the shadow repository from Node, as `git commit-tree`
// would (one git process less per capture: a spawn costs the main process a fork and the capture
// 5 to 20 ms on a loaded machine). A loose object is "<type> <length>\0<body>", zlib-deflated, at
// objects/<2 hex>/<38 hex> named by its SHA-1: the repository's object format (sha1, format 0).
// Contract: resolves with the object id once the object file is in place (written to a temporary
// file, then renamed: a reader never sees half an object; an existing object is left alone);
// rejects with the file system's error (ENOSPC for a full disk, which the caller classifies).
import { Buffer } from "node:buffer";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { deflate } from "node:zlib";

const deflateAsync = promisify(deflate);
const AUTHOR = "Lathe <checkpoints@lathe.invalid>";
/** A commit message is a label for people reading the store: one line, bounded. */
const MAX_MESSAGE = 200;

/** The body of a commit object: `tree`, then `parent` (if any), author, committer, a blank line, the message. */
export function commitBody(tree: string, parent: string | null, message: string, when: Date): Buffer {
  const seconds = Math.floor(when.getTime() / 1000);
  // eslint-disable-next-line no-control-regex -- control characters are what is replaced
  const line = message.replace(/[\u0000-\u001f\u007f]/g, " ").slice(0, MAX_MESSAGE);
  const lines = [`tree ${tree}`];
  if (parent) lines.push(`parent ${parent}`);
  lines.push(`author ${AUTHOR} ${seconds} +0000`, `committer ${AUTHOR} ${seconds} +0000`, "", line, "");
  return Buffer.from(lines.join("\n"), "utf8");
}

/** Stores an object of `type` and returns its id. Objects are read-only (0400), folders private (0700). */
export async function writeLooseObject(gitDir: string, type: "commit" | "blob" | "tree", body: Buffer): Promise<string> {
  const data = Buffer.concat([Buffer.from(`${type} ${body.length}\0`, "utf8"), body]);
  const id = createHash("sha1").update(data).digest("hex");
  const folder = join(gitDir, "objects", id.slice(0, 2));
  const file = join(folder, id.slice(2));
  if (await stat(file).catch(() => null)) return id;
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temp = join(folder, `tmp_obj_lathe_${process.pid}_${randomBytes(6).toString("hex")}`);
  try {
    await writeFile(temp, await deflateAsync(data, { level: 1 }), { mode: 0o400, flag: "wx" });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return id;
}

/** Writes the commit of a capture: `tree`, with `parent` as its parent (every stored tree stays reachable). */
export function writeCommit(gitDir: string, tree: string, parent: string | null, message: string, when = new Date()): Promise<string> {
  return writeLooseObject(gitDir, "commit", commitBody(tree, parent, message, when));
}
