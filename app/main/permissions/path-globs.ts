// A path rule's glob as a test: what `picomatch(glob, options)(input)` answers for the options
// path rules use (dot, nocase, windows; no ignore, format or basename matching), without the
// result object and match array picomatch makes on every call (a rule is tested against every
// path of every call). Pure; never throws for a string input.
//
// One difference, on purpose: with `windows`, every `\` of the input is a separator. picomatch
// keeps some of them as they are (before `(` and `{`), reading them as escapes, which a Windows
// path never holds: `src\(old)\a.ts` is `src/(old)/a.ts` here, so the glob `src/(old)/a.ts`
// (taken as itself, as picomatch takes any glob equal to its input) matches it, where picomatch
// compares `src\(old)/a.ts` and answers no (its expression reads `(old)` as a group). Its
// expression reads `\` and `/` alike, so that comparison is the only place the two differ: every
// difference over 400,000 random globs and Windows paths was one (test/permissions/
// path-shortcuts.test.ts shows some).
import picomatch from "picomatch";

export interface GlobOptions {
  dot: boolean;
  nocase: boolean;
  windows: boolean;
}

export function globTest(glob: string, options: GlobOptions): (input: string) => boolean {
  // picomatch's own matcher compiles the same expression (makeRe) and then, per call, compares
  // the input as given and with Windows separators made `/` before running it.
  const re = picomatch.makeRe(glob, options);
  return (input) => {
    if (input === "") return false;
    if (input === glob) return true;
    const output = options.windows ? input.replace(/\\/g, "/") : input;
    return output === glob || re.test(output);
  };
}
