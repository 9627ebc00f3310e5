// `--token-file PATH`: the headless host's access token kept in a file, so a restarted host has
// the same address and open tabs reconnect by themselves. The file is the credential, so it must
// be the owner's alone: created with mode 0600 when missing (and its folder must exist), refused
// when group or others may read or write it, when another user owns it, or when it is not a
// regular file. The token in it must be 32 to 512 characters of A-Z a-z 0-9 - _ (what the host
// writes: 32 random bytes, base64url). Errors are TokenFileError with a message saying what to
// do; nothing else is thrown.
import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, fstatSync, openSync, readFileSync, writeSync } from "node:fs";

export class TokenFileError extends Error {}

const TOKEN = /^[A-Za-z0-9_-]{32,512}$/;

export interface KeptToken {
  token: string;
  /** True when the file was created now. */
  created: boolean;
}

export function readOrCreateToken(path: string): KeptToken {
  const existing = openExisting(path);
  if (existing === null) return { token: create(path), created: true };
  try {
    const stat = fstatSync(existing);
    if (!stat.isFile()) throw new TokenFileError(`The token file ${path} is not a regular file.`);
    if (process.platform !== "win32") {
      const uid = process.getuid?.();
      if (uid !== undefined && stat.uid !== uid) throw new TokenFileError(`The token file ${path} belongs to another user (uid ${stat.uid}): use a file of your own.`);
      const loose = stat.mode & 0o077;
      if (loose !== 0) {
        const mode = (stat.mode & 0o777).toString(8).padStart(3, "0");
        throw new TokenFileError(
          `The token file ${path} can be read or changed by other users (mode ${mode}); it holds the host's access token. Make it yours alone with \`chmod 600 ${path}\`, or delete it to have a new one made.`,
        );
      }
    }
    if (stat.size > 4096) throw new TokenFileError(`The token file ${path} is ${stat.size} bytes: it should hold one token.`);
    const token = readFileSync(existing, "utf8").trim();
    if (!TOKEN.test(token))
      throw new TokenFileError(`The token file ${path} does not hold a token (32 to 512 characters of A-Z, a-z, 0-9, - and _). Delete it to have a new one made.`);
    return { token, created: false };
  } finally {
    closeSync(existing);
  }
}

/** The open file, or null when there is none. Links are not followed. */
function openExisting(path: string): number | null {
  try {
    return openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw new TokenFileError(`The token file ${path} is a symbolic link: give the path of the file itself.`);
    throw new TokenFileError(`The token file ${path} cannot be read: ${(error as Error).message}`);
  }
}

function create(path: string): string {
  const token = randomBytes(32).toString("base64url");
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new TokenFileError(`The token file ${path} cannot be created: its folder does not exist.`);
    if (code === "EEXIST") throw new TokenFileError(`The token file ${path} appeared while it was being created: start the host again.`);
    throw new TokenFileError(`The token file ${path} cannot be created: ${(error as Error).message}`);
  }
  try {
    // The mode given to open is reduced by the umask, never widened; set it exactly all the same.
    if (process.platform !== "win32") fchmodSync(fd, 0o600);
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  return token;
}
