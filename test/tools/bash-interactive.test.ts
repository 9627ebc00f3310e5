// Interactive programs through the bash tool's terminal (its output processing is off, see
// app/main/tools/pty-command.ts): a prompt, the Python REPL, `git commit` whose editor is refused,
// and `less` quit by the user. Each waits for input, is detected as waiting, takes what is typed
// and ends as it would in a terminal.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { BashProgressDetails } from "../../app/main/tools/bash.ts";
import { createCodingTools } from "../../app/main/tools/index.ts";
import { runTool, tempDir, type ToolRun } from "./helpers.ts";
import { describeWhen, itWhen, needsLinux } from "../support/requirements.ts";

const project = tempDir();
const outputs = tempDir("lathe-bash-out-");
afterAll(() => {
  project.cleanup();
  outputs.cleanup();
});

const hasCommand = (name: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

/**
 * What to type: once the terminal shows `after` (past what was shown when the last answer was
 * typed), or once the command is reported as waiting for input (programs that read the terminal
 * with read(); the Python REPL and vi wait in poll(), which is not reported).
 */
type Answer = { after: string; send: string } | { waiting: true; send: string };

/** Runs `command`, typing each answer once its cue is on the terminal. */
async function interact(command: string, answers: Answer[], id: string): Promise<ToolRun & { typed: number; screen: string; sawWaiting: boolean }> {
  const tools = createCodingTools({ projectDir: project.dir, outputDir: outputs.dir });
  const bash = tools.tools.find((t) => t.name === "bash")!;
  let typed = 0;
  let screen = "";
  let from = 0;
  let sawWaiting = false;
  const run = await runTool(
    bash,
    { command, timeout: 60 },
    {
      id,
      onUpdate: (u) => {
        const d = u.details as BashProgressDetails;
        screen += d.chunk;
        sawWaiting ||= d.waitingForInput;
        const next = answers[typed];
        const cue = next && ("waiting" in next ? d.waitingForInput : screen.indexOf(next.after, from) !== -1);
        if (next && cue && tools.writeInput(id, next.send)) {
          typed++;
          from = screen.length;
        }
      },
    },
  );
  return { ...run, typed, screen, sawWaiting };
}

describeWhen(needsLinux(), "interactive commands in the terminal", () => {
  it("a prompt takes the typed answer, and the terminal's lines end as the command wrote them", async () => {
    const run = await interact('read -p "Name? " name; echo "hello $name"; printf "one\\ntwo\\n"; stty -a | grep -o -- "-\\?opost"', [{ waiting: true, send: "bob\r" }], "prompt");
    expect(run.text).toContain("\n-opost\n");
    expect(run.typed).toBe(1);
    expect(run.isError).toBe(false);
    expect(run.text).toContain("hello bob\none\ntwo");
    // Typed input is echoed by the terminal (with its own CR LF); the command's "\n" stays "\n".
    expect(run.screen).toContain("one\ntwo\n");
  });

  it("the terminal's line editing knows UTF-8: a backspace erases a whole typed character (IUTF8)", async () => {
    // Without IUTF8 the kernel erases one byte of "é" (two bytes), and the line keeps a stray 0xc3.
    const run = await interact(`read -p "Word? " word; printf '%s' "$word" | od -An -tx1`, [{ waiting: true, send: "\u00e9\x7fa\r" }], "utf8-erase");
    expect(run.typed).toBe(1);
    expect(run.isError).toBe(false);
    expect(run.text.trim().split("\n").at(-3)!.trim()).toBe("61");
  });

  itWhen(
    hasCommand("python3") ? null : "needs python3 on PATH",
    "the Python REPL evaluates typed lines and exits",
    async () => {
      const run = await interact(
        "python3 -q",
        [
          { after: ">>> ", send: "print(6 * 7)\r" },
          { after: ">>> ", send: "exit()\r" },
        ],
        "python",
      );
      expect(run.typed).toBe(2);
      expect(run.isError).toBe(false);
      expect(run.text).toContain(">>> print(6 * 7)\n42\n>>> exit()");
    },
    60_000,
  );

  itWhen(
    hasCommand("git") && hasCommand("vi") ? null : "needs git and vi on PATH",
    "git commit opens the editor; refusing it aborts the commit",
    async () => {
      const repo = path.join(project.dir, "repo");
      execFileSync("git", ["init", "-q", repo]);
      writeFileSync(path.join(repo, "a.txt"), "a\n");
      execFileSync("git", ["-C", repo, "add", "a.txt"]);
      const run = await interact(
        `cd repo && git -c user.name=T -c user.email=t@example.com -c core.editor=vi commit`,
        [{ after: "Please enter the commit message", send: ":cq\r" }],
        "commit",
      );
      expect(run.typed).toBe(1);
      expect(run.isError).toBe(true);
      expect(run.text).toMatch(/problem with the editor|Aborting commit/);
      expect(execFileSync("git", ["-C", repo, "rev-list", "--all"], { encoding: "utf8" })).toBe("");
    },
    60_000,
  );

  itWhen(
    hasCommand("less") ? null : "needs less on PATH",
    "less shows the file and quits when told",
    async () => {
      writeFileSync(path.join(project.dir, "long.txt"), Array.from({ length: 200 }, (_, i) => `row ${i + 1}`).join("\n") + "\n");
      const run = await interact("less long.txt; echo less-exit=$?", [{ waiting: true, send: "q" }], "less");
      expect(run.typed).toBe(1);
      expect(run.isError).toBe(false);
      expect(run.screen).toContain("row 1");
      expect(run.text).toContain("less-exit=0");
    },
    60_000,
  );
});
