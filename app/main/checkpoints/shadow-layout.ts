// The shadow repository's files on disk: what `git init` would make (without its sample hooks),
// the whole configuration, Lathe's default excludes, and the attributes that keep a project's
// .gitattributes from converting content. Written whole, as files (no git call per setting): the
// repository is Lathe's alone. Contract: layOutShadowRepo is idempotent, safe to run at every
// start (it clears a lock a killed git left behind) and rejects only when the files cannot be
// written (the caller reports it). bench/checkpoint-git.bench.ts lays out every store with it
// (its historic variants with their own configuration from SHADOW_BASE_CONFIG), so the figures
// are those of this layout.
import { existsSync, mkdirSync } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Folders never snapshotted unless the project's own .gitignore says otherwise (with a `!` rule). */
export const DEFAULT_EXCLUDES = [
  "node_modules/",
  ".venv/",
  "venv/",
  "__pycache__/",
  ".tox/",
  ".mypy_cache/",
  ".pytest_cache/",
  ".gradle/",
  ".next/",
  ".nuxt/",
  ".turbo/",
  ".parcel-cache/",
  ".DS_Store",
  "*.pyc",
];

/** zlib level of the store's objects (core.compression; pack-writer.ts uses it too). */
export const STORE_COMPRESSION = 1;

const CONFIG_MARKER = "# lathe-checkpoints v3";

/**
 * The settings every version of the store had (bench/checkpoint-git.bench.ts builds its historic
 * variants from them): a non-bare repository of its own, content stored as it is, no ref log, the
 * untracked cache (status reads again only the folders whose mtime changed), index.version 4 (a
 * smaller index, paths prefix-compressed, read and written by every call), no automatic gc, a
 * fixed author, no signing.
 */
export const SHADOW_BASE_CONFIG = `[core]
	repositoryformatversion = 0
	filemode = true
	bare = false
	autocrlf = false
	safecrlf = false
	symlinks = true
	untrackedCache = true
	quotePath = false
	logAllRefUpdates = false
[index]
	version = 4
[gc]
	auto = 0
[user]
	name = Lathe
	email = checkpoints@lathe.invalid
[commit]
	gpgSign = false
`;

/**
 * The shadow repository's whole configuration: the base, and why each other setting:
 * compression 1: the fastest level that compresses (level 0 costs the same CPU, measured: the
 *   cost of a first snapshot is per object, not per byte, and stores 3.7 times more).
 * splitIndex: a turn's update-index and write-tree write only the entries that changed (about
 *   150 KB) instead of the whole index of every file (about 1.6 MB for 20,000 files); a shared
 *   index replaced (once a fifth of the entries changed) is deleted at once (sharedIndexExpire):
 *   only one git process uses this index at a time (ShadowRepo.exclusive).
 * sharedRepository 0600: the store is private (objects 0400, folders 0700).
 */
export const SHADOW_CONFIG = `${SHADOW_BASE_CONFIG}[core]
	splitIndex = true
	looseCompression = ${STORE_COMPRESSION}
	compression = ${STORE_COMPRESSION}
	sharedRepository = 0600
[splitIndex]
	sharedIndexExpire = now
${CONFIG_MARKER}
`;

/**
 * Creates (or completes) the repository at `gitDir`; `hooksDir` is the empty folder core.hooksPath
 * names. `config`: another configuration (the bench's historic variants), written whatever is there.
 */
export async function layOutShadowRepo(gitDir: string, hooksDir: string, config = SHADOW_CONFIG): Promise<void> {
  if (!existsSync(join(gitDir, "HEAD"))) {
    await mkdir(join(gitDir, "objects", "info"), { recursive: true, mode: 0o700 });
    await mkdir(join(gitDir, "refs", "heads"), { recursive: true, mode: 0o700 });
    await writeFile(join(gitDir, "HEAD"), "ref: refs/heads/checkpoints\n", { mode: 0o600 });
  }
  const configFile = join(gitDir, "config");
  const current = await readFile(configFile, "utf8").catch(() => "");
  if (config !== SHADOW_CONFIG || !current.includes(CONFIG_MARKER)) await writeFile(configFile, config, { mode: 0o600 });
  mkdirSync(join(gitDir, "info"), { recursive: true, mode: 0o700 });
  await writeFile(join(gitDir, "info", "exclude"), `# Lathe's default excludes (a project's .gitignore can re-include with !)\n${DEFAULT_EXCLUDES.join("\n")}\n`, {
    mode: 0o600,
  });
  // Highest precedence of all attribute files: the project's .gitattributes cannot convert content.
  await writeFile(join(gitDir, "info", "attributes"), "* -text -eol -filter -ident -working-tree-encoding\n", { mode: 0o600 });
  await rm(join(gitDir, "index.lock"), { force: true });
  const hooks = await stat(hooksDir).catch(() => null);
  if (!hooks?.isDirectory()) await mkdir(hooksDir, { recursive: true, mode: 0o700 });
}
