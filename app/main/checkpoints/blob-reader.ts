// A streaming reader of a store's blobs through one `git cat-file --batch` process (hooks off, no
// file-system monitor, the environment of git-runner.ts). Contract: `read(blob)` resolves with the
// content, or null when the object is missing; requests are answered in order, one at a time; a
// process that stops or cannot start rejects every pending and later read with a GitError. The
// owner calls close() when done.
import { Buffer } from "node:buffer";
import { type Child, spawnChild } from "../tools/child-spawn.ts";
import { GitError, gitEnvironment } from "./git-runner.ts";

export class BlobReader {
  readonly #child: Child;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (b: Buffer | null) => void; reject: (e: Error) => void } | null = null;
  #chain: Promise<unknown> = Promise.resolve();
  #failed: Error | null = null;

  constructor(hooksDir: string, globalArgs: string[]) {
    this.#child = spawnChild("git", ["-c", `core.hooksPath=${hooksDir}`, "-c", "core.fsmonitor=false", ...globalArgs, "cat-file", "--batch"], {
      cwd: hooksDir,
      env: gitEnvironment(),
      stdio: ["pipe", "pipe", "ignore"],
    });
    this.#child.on("error", (error) => this.#fail(new GitError("failed", `git cat-file could not run: ${error.message}`)));
    this.#child.on("close", () => this.#fail(new GitError("damaged", "git cat-file stopped before answering: the checkpoint store may be damaged.")));
    this.#child.stdin!.on("error", () => undefined);
    this.#child.stdout!.on("data", (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#drain();
    });
  }

  #fail(error: Error): void {
    this.#failed ??= error;
    const w = this.#waiting;
    this.#waiting = null;
    w?.reject(this.#failed);
  }

  #drain(): void {
    const w = this.#waiting;
    if (!w) return;
    const nl = this.#buffer.indexOf(0x0a);
    if (nl === -1) return;
    const header = this.#buffer.subarray(0, nl).toString("utf8");
    if (header.endsWith(" missing")) {
      this.#buffer = this.#buffer.subarray(nl + 1);
      this.#waiting = null;
      w.resolve(null);
      return;
    }
    const size = Number(header.split(" ")[2]);
    if (!Number.isFinite(size)) return this.#fail(new GitError("damaged", `git cat-file answered "${header.slice(0, 100)}".`));
    if (this.#buffer.length < nl + 1 + size + 1) return;
    const content = Buffer.from(this.#buffer.subarray(nl + 1, nl + 1 + size));
    this.#buffer = this.#buffer.subarray(nl + 1 + size + 1);
    this.#waiting = null;
    w.resolve(content);
  }

  read(blob: string): Promise<Buffer | null> {
    const run = this.#chain.then(
      () =>
        new Promise<Buffer | null>((resolve, reject) => {
          if (this.#failed) return reject(this.#failed);
          this.#waiting = { resolve, reject };
          this.#child.stdin!.write(`${blob}\n`);
          this.#drain();
        }),
    );
    this.#chain = run.catch(() => undefined);
    return run;
  }

  close(): void {
    this.#child.removeAllListeners("close");
    this.#child.stdin!.end();
  }
}
