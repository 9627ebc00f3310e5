// Linux refuses a program argument of MAX_ARG_STRLEN (32 pages: 131,072 bytes with its NUL) or
// more with E2BIG. The native spawners (native/spawn-common.c) learn it only after copying every
// argument into C: about 135 ms of main thread for one 20 MB argument, 13 to 27 ms for 3 MB.
// An argument that long in UTF-16 units is at least that long in UTF-8, so it is refused here
// first, with the error the native spawner gives (same message and code), at no cost.
const MAX_ARG_STRLEN = 131_072;

/** The spawner's E2BIG error when an argument is surely over the kernel's limit, else undefined. */
export function argumentTooLong(file: string, args: readonly string[], cwd: string): NodeJS.ErrnoException | undefined {
  // With a NUL anywhere, the native spawner's own refusal (a TypeError) comes first, as before.
  if (!args.some((arg) => arg.length >= MAX_ARG_STRLEN) || args.some((arg) => arg.includes("\0"))) return undefined;
  // As spawn-common.c words it ("could not start %.500s in %.500s: <strerror>").
  return Object.assign(new Error(`could not start ${file.slice(0, 500)} in ${cwd.slice(0, 500)}: Argument list too long`), { code: "E2BIG" });
}
