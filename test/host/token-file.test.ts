// `--token-file`: the host's access token kept in a file of the owner's alone. Unit checks of
// readOrCreateToken (created 0600 whatever the umask, read back the same, refused when loose,
// linked, not a file, or not a token), then the real host process started twice on one token file:
// the same address both times, and clear refusals (exit status 2) for a bad file.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readOrCreateToken, TokenFileError } from "../../app/main/host/token-file.ts";
import { connectHost, startHostProcess, type HostProcess } from "../support/host-process.ts";
import { describeWhen, itWhen, type Missing } from "../support/requirements.ts";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-token-file-")));
const children: HostProcess[] = [];
afterAll(() => {
  for (const child of children) child.child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
const fresh = () => path.join(root, `case-${++n}`);
const needsPosixModes = (): Missing => (process.platform !== "win32" ? null : "needs POSIX file modes");

describe("readOrCreateToken", () => {
  it("creates the file owner-only (even under a permissive umask) and reads the same token back", () => {
    const file = fresh();
    const before = process.umask(0o000);
    let made;
    try {
      made = readOrCreateToken(file);
    } finally {
      process.umask(before);
    }
    expect(made.created).toBe(true);
    expect(made.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    if (needsPosixModes() === null) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(`${made.token}\n`);
    expect(readOrCreateToken(file)).toEqual({ token: made.token, created: false });
  });

  itWhen(needsPosixModes(), "refuses a file others may read or write, and says how to fix it", () => {
    const file = fresh();
    readOrCreateToken(file);
    for (const mode of [0o644, 0o620, 0o604]) {
      chmodSync(file, mode);
      expect(() => readOrCreateToken(file)).toThrow(new RegExp(`can be read or changed by other users \\(mode ${mode.toString(8)}\\).*chmod 600`));
    }
  });

  it("refuses what is not a token, a symbolic link, a folder, a missing folder; every error is a TokenFileError", () => {
    const bad = fresh();
    writeFileSync(bad, "short\n", { mode: 0o600 });
    expect(() => readOrCreateToken(bad)).toThrow(/does not hold a token/);
    writeFileSync(bad, "a".repeat(40) + " b\n", { mode: 0o600 });
    expect(() => readOrCreateToken(bad)).toThrow(/does not hold a token/);
    writeFileSync(bad, "x".repeat(5000), { mode: 0o600 });
    expect(() => readOrCreateToken(bad)).toThrow(/5000 bytes: it should hold one token/);

    const target = fresh();
    readOrCreateToken(target);
    const link = fresh();
    symlinkSync(target, link);
    expect(() => readOrCreateToken(link)).toThrow(/is a symbolic link/);

    const folder = fresh();
    mkdirSync(folder, { mode: 0o700 });
    expect(() => readOrCreateToken(folder)).toThrow(/is not a regular file/);
    expect(() => readOrCreateToken(path.join(root, "no-such-folder", "token"))).toThrow(/its folder does not exist/);

    for (const file of [bad, link, folder]) {
      try {
        readOrCreateToken(file);
      } catch (error) {
        expect(error).toBeInstanceOf(TokenFileError);
      }
    }
  });
});

describe("the host with --token-file", () => {
  const start = (dataDir: string, args: string[]) => {
    const h = startHostProcess(dataDir, args);
    children.push(h);
    return h;
  };

  it("keeps one address across restarts; without the file each start has a new token", async () => {
    const dataDir = fresh();
    const tokenFile = fresh();
    const first = start(dataDir, ["--token-file", tokenFile]);
    const firstUrl = await first.url;
    expect(first.stdout()).toContain(`The access token is kept in ${tokenFile} (created now, readable by you only)`);
    const port = new URL(firstUrl).port;
    const token = readFileSync(tokenFile, "utf8").trim();
    expect(firstUrl).toBe(`http://127.0.0.1:${port}/#token=${token}`);
    first.child.kill("SIGTERM");
    await first.exited;

    const second = start(dataDir, ["--token-file", tokenFile, "--port", port]);
    expect(await second.url).toBe(firstUrl);
    expect(second.stdout()).not.toContain("created now");
    const connection = await connectHost(firstUrl);
    expect((await connection.call("projects.list")).ok).toBe(true);
    connection.close();
    second.child.kill("SIGTERM");
    await second.exited;

    const third = start(dataDir, ["--port", port]);
    expect(await third.url).not.toBe(firstUrl);
    third.child.kill("SIGTERM");
    await third.exited;
  }, 120_000);

  describeWhen(needsPosixModes(), "a token file others may read", () => {
    it("exits with status 2 and says why when the token file is not safe", async () => {
      const tokenFile = fresh();
      readOrCreateToken(tokenFile);
      chmodSync(tokenFile, 0o644);
      const refused = start(fresh(), ["--token-file", tokenFile]);
      expect(await refused.exited).toBe(2);
      expect(refused.stderr()).toContain(`Lathe could not start: The token file ${tokenFile} can be read or changed by other users`);
      expect(refused.stdout()).not.toContain("Open http");
    }, 30_000);
  });
});
