// The environment commands run in: the app's own environment minus provider keys, Electron's and
// Node's control variables, plus settings that keep commands non-interactive where they can be.
// Pure; never throws.

/** Variables that are never passed to a command. */
const DROPPED_PREFIXES = ["ELECTRON_", "ANTHROPIC_", "OPENAI_", "AZURE_OPENAI_", "LATHE_"];
const DROPPED_NAMES = new Set(["NODE_OPTIONS", "NODE_CHANNEL_FD", "NODE_UNIQUE_ID", "CHROME_DESKTOP", "GOOGLE_API_KEY"]);
/** Any `..._API_KEY` (GEMINI_API_KEY, MISTRAL_API_KEY, OPENROUTER_API_KEY, ...). */
const API_KEY_NAME = /(^|_)API_KEY$/i;

const FORCED: Record<string, string> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
  TERM: "xterm-256color",
};

export function isDroppedVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return DROPPED_NAMES.has(upper) || API_KEY_NAME.test(upper) || DROPPED_PREFIXES.some((p) => upper.startsWith(p));
}

export function sanitizedShellEnv(base: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !isDroppedVariable(name)) env[name] = value;
  }
  return { ...env, ...extra, ...FORCED };
}
