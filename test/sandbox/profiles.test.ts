// The sandbox's generated configuration, without running it: the Seatbelt profile for macOS
// (snapshot, and read back with an S-expression reader to check its structure and every string),
// the bubblewrap arguments (mount order for nested folders), and the detection messages for a
// machine without bwrap, with a bwrap that cannot make namespaces, on macOS and on Windows; the
// same answers found in the background (the app's start), once.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bwrapArgs, type PathKind } from "../../app/main/sandbox/bwrap.ts";
import { detectSandbox, detectSandboxInBackground } from "../../app/main/sandbox/detect.ts";
import { defaultHiddenPaths, type SandboxRules } from "../../app/main/sandbox/rules.ts";
import { SandboxService } from "../../app/main/sandbox/sandbox-service.ts";
import { sbplString, seatbeltProfile } from "../../app/main/sandbox/seatbelt.ts";
import { head, parseSexps, type Sexp } from "../support/sexp.ts";

const home = "/Users/me";
const macRules: SandboxRules = {
  cwd: "/Users/me/code/app",
  writable: ["/Users/me/code/app", "/private/var/folders/xy/T/lathe-session-1-abc/tmp", "/private/var/folders/xy/T/lathe-session-1-abc/output"],
  hidden: defaultHiddenPaths({
    home,
    dataDir: "/Users/me/Library/Application Support/Lathe",
    env: { SSH_AUTH_SOCK: "/private/tmp/com.apple.launchd.x/Listeners" },
    platform: "darwin",
  }),
  network: false,
};

const SBPL_OPERATIONS = new Set([
  "default",
  "process-exec",
  "process-fork",
  "signal",
  "process-info*",
  "user-preference-read",
  "mach-host*",
  "ipc-posix-sem",
  "mach-lookup",
  "sysctl-read",
  "pseudo-tty",
  "file-read*",
  "file-write*",
  "file-ioctl",
  "file-write-data",
  "network-outbound",
  "network-inbound",
  "system-socket",
]);

const atoms = (s: Sexp): string[] => ("list" in s ? s.list.flatMap(atoms) : "symbol" in s ? [s.symbol] : []);
const strings = (s: Sexp): string[] => ("list" in s ? s.list.flatMap(strings) : "string" in s ? [s.string] : []);
/** The file rules, in order, as [action, path]. */
function fileRules(forms: Sexp[]): [string, string][] {
  return forms
    .filter((f) => "list" in f && f.list.some((x) => "list" in x && head(x) === "subpath"))
    .map((f) => {
      const list = (f as { list: Sexp[] }).list;
      const subpath = list.find((x) => head(x) === "subpath") as { list: Sexp[] };
      return [head(f)!, (subpath.list[1] as { string: string }).string];
    });
}

describe("Seatbelt profile", () => {
  it("matches the snapshot for a representative project", () => {
    expect(seatbeltProfile(macRules)).toMatchSnapshot();
  });

  it("parses, denies by default, and uses only known operations", () => {
    const forms = parseSexps(seatbeltProfile(macRules));
    expect(forms[0]).toEqual({ list: [{ symbol: "version" }, { symbol: "1" }] });
    expect(forms[1]).toEqual({ list: [{ symbol: "deny" }, { symbol: "default" }] });
    for (const form of forms.slice(1)) {
      expect(["allow", "deny"]).toContain(head(form));
      const operations = (form as { list: Sexp[] }).list
        .slice(1)
        .filter((x): x is { symbol: string } => "symbol" in x)
        .map((x) => x.symbol);
      expect(operations.length).toBeGreaterThan(0);
      for (const op of operations) expect(SBPL_OPERATIONS, op).toContain(op);
    }
    // Processes: only within the sandbox, so the app's processes (and their environment) stay out of reach.
    const profile = seatbeltProfile(macRules);
    expect(profile).toContain("(allow process-info* (target same-sandbox))");
    expect(profile).toContain("(allow signal (target same-sandbox))");
    expect(atoms({ list: forms })).not.toContain("kern.procargs2");
    expect(strings({ list: forms })).not.toContain("kern.procargs2");
  });

  it("writes the writable folders, hides the secret paths, and orders nested rules parents first", () => {
    const rules: SandboxRules = {
      ...macRules,
      writable: [...macRules.writable, "/Users/me/Library/Application Support/Lathe/exports"],
      hidden: [...macRules.hidden, "/Users/me/code/app/.env.secrets"],
    };
    const order = fileRules(parseSexps(seatbeltProfile(rules)));
    expect(order).toContainEqual(["allow", "/Users/me/code/app"]);
    expect(order).toContainEqual(["deny", "/Users/me/.ssh"]);
    expect(order).toContainEqual(["deny", "/Users/me/Library/Keychains"]);
    expect(order).toContainEqual(["deny", "/private/tmp/com.apple.launchd.x/Listeners"]);
    const at = (action: string, p: string) => order.findIndex(([a, q]) => a === action && q === p);
    // A secret inside the project is hidden after the project is opened; a writable folder inside
    // a hidden one is opened after it is hidden (the later rule decides).
    expect(at("deny", "/Users/me/code/app/.env.secrets")).toBeGreaterThan(at("allow", "/Users/me/code/app"));
    expect(at("allow", "/Users/me/Library/Application Support/Lathe/exports")).toBeGreaterThan(at("deny", "/Users/me/Library/Application Support/Lathe"));
  });

  it("keeps the project's git hooks and config unwritable inside the writable project", () => {
    const hooks = "/Users/me/code/app/.git/hooks";
    const order = fileRules(parseSexps(seatbeltProfile({ ...macRules, readOnly: [hooks] })));
    const at = order.findIndex(([a, q]) => a === "deny" && q === hooks);
    expect(at).toBeGreaterThan(order.findIndex(([a, q]) => a === "allow" && q === "/Users/me/code/app"));
    expect(seatbeltProfile({ ...macRules, readOnly: [hooks] })).toContain(`(deny file-write* (subpath "${hooks}"))`);
  });

  it("keeps every path exactly, whatever characters it holds", () => {
    const hostile = '/Users/me/we"ird\\ (dir); #"x" \n(allow default)';
    const forms = parseSexps(seatbeltProfile({ ...macRules, writable: [hostile], hidden: [] }));
    expect(fileRules(forms)).toEqual([["allow", hostile]]);
    expect(
      forms.some(
        (f) =>
          head(f) === "allow" &&
          (f as { list: Sexp[] }).list[1] &&
          "symbol" in (f as { list: Sexp[] }).list[1]! &&
          ((f as { list: Sexp[] }).list[1] as { symbol: string }).symbol === "default",
      ),
    ).toBe(false);
    expect(parseSexps(sbplString(hostile))).toEqual([{ string: hostile }]);
  });

  it("allows network only when asked to", () => {
    expect(seatbeltProfile(macRules)).not.toMatch(/network-outbound|network-inbound|system-socket/);
    const withNet = parseSexps(seatbeltProfile({ ...macRules, network: true }));
    expect(withNet.map((f) => atoms(f).slice(0, 2).join(" "))).toEqual(expect.arrayContaining(["allow network-outbound", "allow network-inbound", "allow system-socket"]));
  });
});

describe("bubblewrap arguments", () => {
  const kinds: Record<string, PathKind> = { "/home/me": "dir", "/home/me/.ssh": "dir", "/data": "dir", "/data/out": "dir", "/home/me/.netrc": "file", "/tmp/s/tmp": "dir" };
  const probe = (p: string) => ({ kind: kinds[p] ?? ("missing" as const), real: p });
  const rules: SandboxRules = {
    cwd: "/home/me",
    writable: ["/home/me", "/data/out", "/tmp/s/tmp"],
    hidden: ["/home/me/.ssh", "/data", "/home/me/.netrc", "/home/me/.aws"],
    network: false,
  };

  it("binds parents before children, hides missing nothing, and makes hidden folders read-only last", () => {
    const args = bwrapArgs(rules, { emptyFile: "/tmp/s/empty", probe });
    const joined = args.join(" ");
    expect(args.slice(0, 7)).toEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    expect(joined.indexOf("--bind /home/me /home/me")).toBeLessThan(joined.indexOf("--tmpfs /home/me/.ssh"));
    expect(joined.indexOf("--tmpfs /data")).toBeLessThan(joined.indexOf("--bind /data/out /data/out"));
    expect(joined).toContain("--ro-bind /tmp/s/empty /home/me/.netrc");
    expect(joined).not.toContain(".aws");
    expect(joined.indexOf("--remount-ro /home/me/.ssh")).toBeGreaterThan(joined.indexOf("--bind /data/out /data/out"));
    expect(joined).toContain("--unshare-all --unshare-user --disable-userns --cap-drop ALL --die-with-parent --chdir /home/me --");
    expect(args.at(-1)).toBe("--");
    expect(joined).not.toContain("--share-net");
  });

  it("binds the read-only paths over the project, an empty folder where one is missing", () => {
    const args = bwrapArgs(
      { ...rules, readOnly: ["/home/me/.git/config", "/home/me/.git/hooks"] },
      { emptyFile: "/e", emptyDir: "/tmp/s/empty-dir", probe: (p) => (p === "/home/me/.git/config" ? { kind: "file", real: p } : probe(p)) },
    ).join(" ");
    expect(args).toContain("--ro-bind /home/me/.git/config /home/me/.git/config");
    expect(args).toContain("--ro-bind /tmp/s/empty-dir /home/me/.git/hooks");
    expect(args.indexOf("--bind /home/me /home/me")).toBeLessThan(args.indexOf("--ro-bind /home/me/.git/config"));
  });

  it("shares the network only when allowed, and leaves out the user namespace where bwrap cannot make one", () => {
    expect(bwrapArgs({ ...rules, network: true }, { emptyFile: "/e", probe })).toContain("--share-net");
    expect(bwrapArgs(rules, { emptyFile: "/e", probe, userNamespace: false })).not.toContain("--unshare-user");
  });

  it("never hides a folder the command must write", () => {
    const args = bwrapArgs({ ...rules, hidden: ["/home/me"] }, { emptyFile: "/e", probe }).join(" ");
    expect(args).not.toContain("--tmpfs /home/me ");
  });
});

describe("sandbox detection", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "lathe-fake-bwrap-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fakeBwrap = (name: string, script: string) => {
    const folder = path.join(dir, name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "bwrap"), `#!/bin/sh\n${script}\n`);
    chmodSync(path.join(folder, "bwrap"), 0o755);
    return folder;
  };

  it("says how to install bubblewrap when bwrap is not on PATH", () => {
    const found = detectSandbox({ platform: "linux", pathVariable: path.join(dir, "empty-path") });
    expect(found).toMatchObject({ kind: "bubblewrap", available: false });
    expect(found.message).toContain("bubblewrap (bwrap) is not installed");
    expect(found.message).toContain("sudo apt install bubblewrap");
    expect(found.message).toContain("every command asks");
  });

  it("says why when bwrap cannot create namespaces, quoting bwrap", () => {
    const folder = fakeBwrap("denied", 'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1');
    const found = detectSandbox({ platform: "linux", pathVariable: folder });
    expect(found).toMatchObject({ kind: "bubblewrap", available: false });
    expect(found.message).toContain("cannot create namespaces here (bwrap: setting up uid map: Permission denied)");
    expect(found.message).toContain("AppArmor");
  });

  it("falls back to no user namespace where only that is refused", () => {
    const folder = fakeBwrap("no-userns", 'for a in "$@"; do [ "$a" = --unshare-user ] && { echo "bwrap: no user namespaces" >&2; exit 1; }; done; exit 0');
    expect(detectSandbox({ platform: "linux", pathVariable: folder })).toMatchObject({ available: true, userNamespace: false, executable: path.join(folder, "bwrap") });
  });

  it("finds the same in the background, without holding the event loop while a probe runs", async () => {
    const folders = [
      path.join(dir, "empty-path"),
      fakeBwrap("denied-bg", 'echo "bwrap: setting up uid map: Permission denied" >&2; exit 1'),
      fakeBwrap("no-userns-bg", 'for a in "$@"; do [ "$a" = --unshare-user ] && { echo "bwrap: no user namespaces" >&2; exit 1; }; done; exit 0'),
      fakeBwrap("works-bg", "exit 0"),
    ];
    for (const folder of folders) {
      expect(await detectSandboxInBackground({ platform: "linux", pathVariable: folder })).toEqual(detectSandbox({ platform: "linux", pathVariable: folder }));
    }
    // A probe of 300 ms: timers keep firing meanwhile.
    const slow = fakeBwrap("slow-bg", "sleep 0.3; exit 0");
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const found = await detectSandboxInBackground({ platform: "linux", pathVariable: slow });
    clearInterval(timer);
    expect(found).toMatchObject({ available: true, userNamespace: true });
    expect(ticks).toBeGreaterThan(5);
  });

  it("the app's sandbox detects once, in the background, and its status then has the answer", async () => {
    const log = path.join(dir, "probes.log");
    const folder = fakeBwrap("counted", `echo probe >> '${log}'; exit 0`);
    const service = new SandboxService({
      settings: () => ({ networkProjects: [], realMachineCommands: null, hiddenPaths: [] }),
      dataDir: path.join(dir, "data"),
      env: { PATH: folder },
    });
    await service.detectInBackground();
    expect(service.status()).toMatchObject({ available: true, executable: path.join(folder, "bwrap") });
    await service.detectInBackground();
    service.status();
    expect(readFileSync(log, "utf8")).toBe("probe\n");
  });

  it("uses sandbox-exec on macOS, saying it has not been tested on a Mac; Windows has none", () => {
    const mac = detectSandbox({ platform: "darwin", run: () => ({ status: 0, stderr: "" }) });
    expect(mac).toMatchObject({ kind: "seatbelt", available: true, executable: "/usr/bin/sandbox-exec" });
    expect(mac.message).toContain("has not yet been tested on a Mac");
    const windows = detectSandbox({ platform: "win32" });
    expect(windows).toMatchObject({ kind: "none", available: false });
    expect(windows.message).toContain("no sandbox for Windows yet");
  });
});
