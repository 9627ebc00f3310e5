// How a command starts in the pseudo-terminal: `shell -c command`, preceded by `stty -opost` on
// the terminal, so the kernel does no output processing (no "\n" to "\r\n" per line: that halves
// the pty's throughput). Lines then end in "\n" alone; the terminal view converts them (xterm.js
// `convertEol`), and the text for the model is the same either way (terminal-text.ts reads both).
// Only output processing changes: input, echo, signals and line editing stay as they were, and a
// program that sets its own modes (an editor, `less`) still does. `iutf8` is set too: node-pty
// sets it only when it decodes the output as UTF-8 itself, and the tool takes bytes (without it a
// backspace at a prompt erases one byte of a typed "é", not the character). A tiny `sh` runs stty, then
// replaces itself with the shell (same process, so process groups, signals and exit codes are
// unchanged); if stty fails the command runs anyway. Not on Windows (no `sh`). Pure; never throws.

/** The script `sh -c` runs: stty on the terminal (no output processing; UTF-8 line editing), then exec of the real command ("$0" "$@"). */
export const RAW_OUTPUT_SCRIPT = 'stty -opost iutf8 2>/dev/null; exec "$0" "$@"';

/** The argument vector (file first) that runs `command` with `shell` in a terminal without output processing. */
export function ptyCommandLine(shell: string, command: string, platform: NodeJS.Platform = process.platform): string[] {
  if (platform === "win32") return [shell, "-c", command];
  return ["/bin/sh", "-c", RAW_OUTPUT_SCRIPT, shell, "-c", command];
}
