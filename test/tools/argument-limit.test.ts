// An argument over the kernel's per-argument limit is refused before the native spawners copy it
// (argument-limit.ts), with their own error: the same message and code as the kernel's refusal
// seen through them, at exactly the kernel's boundary.
import { expect, it, vi } from "vitest";
import { argumentTooLong } from "../../app/main/tools/argument-limit.ts";
import { loadNativeReader } from "../../app/main/tools/pty-reader.ts";
import { spawnChild } from "../../app/main/tools/child-spawn.ts";
import { spawnTerminal } from "../../app/main/tools/pty-spawn.ts";
import { describeWhen, needsLinux } from "../support/requirements.ts";

const env = Object.entries(process.env).map(([name, value]) => `${name}=${value}`);

describeWhen(needsLinux(), "the argument limit", () => {
  it("refuses at the kernel's boundary, in the native spawner's words", () => {
    const spawnPipes = loadNativeReader().module!.spawnPipes!;
    const over = "x".repeat(131_072);
    let native: NodeJS.ErrnoException | undefined;
    try {
      spawnPipes("/bin/true", ["/bin/true", over], env, "/tmp", [false, false, false], () => undefined);
    } catch (error) {
      native = error as NodeJS.ErrnoException;
    }
    const early = argumentTooLong("/bin/true", [over], "/tmp");
    expect(early).toBeDefined();
    expect([early!.message, early!.code]).toEqual([native!.message, native!.code]);
    expect(argumentTooLong("/bin/true", ["x".repeat(131_071)], "/tmp")).toBeUndefined();
    // A NUL is the native spawner's to refuse (a TypeError), as before.
    expect(argumentTooLong("/bin/true", [`${over}\0`], "/tmp")).toBeUndefined();
  });

  it("lets the longest argument the kernel takes run", async () => {
    const child = spawnChild("/bin/sh", ["-c", 'printf %s "$1" | wc -c', "sh", "x".repeat(131_071)]);
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise((resolve) => child.on("close", resolve));
    expect(out.trim()).toBe("131071");
  });

  it("never hands such an argument to the native spawners (each would copy it all first)", async () => {
    const module = loadNativeReader().module!;
    const pipes = vi.spyOn(module, "spawnPipes");
    const terminal = vi.spyOn(module, "spawn");
    try {
      const long = "x".repeat(20 * 1024 * 1024);
      expect(() => spawnTerminal("/bin/sh", ["-c", long], { cols: 80, rows: 24, cwd: "/tmp", env: { PATH: "/usr/bin:/bin" } })).toThrow(expect.objectContaining({ code: "E2BIG" }));
      const child = spawnChild("/bin/true", [long]);
      const error = await new Promise<NodeJS.ErrnoException>((resolve) => child.on("error", resolve));
      expect(error.code).toBe("E2BIG");
      expect(pipes).not.toHaveBeenCalled();
      expect(terminal).not.toHaveBeenCalled();
    } finally {
      pipes.mockRestore();
      terminal.mockRestore();
    }
  });
});
