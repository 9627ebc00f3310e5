// A path rule's glob as a test: what `picomatch(glob, options)(input)` answers for the options
// path rules use (dot, nocase, windows; no ignore, format or basename matching), without the
// result object and match array picomatch makes on every call (a rule is tested against every
// path of every call). Pure; never throws for a string input.
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
