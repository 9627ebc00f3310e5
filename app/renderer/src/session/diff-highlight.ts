// Syntax highlighting for the diff view: the language from the file name, then each hunk's old and
// new side highlighted as a whole (so strings and comments spanning lines are right within a hunk)
// by highlight.js through lowlight (a syntax tree, never HTML: nothing is set as innerHTML), and cut
// back into lines. A segment is a piece of text with its highlight.js classes. Bounded: very long
// hunks or lines are left plain. Pure; never throws (a grammar that fails leaves the text plain).
import { common, createLowlight } from "lowlight";
import type { DiffFile, DiffLine } from "./diff-parse";

export interface Segment {
  text: string;
  className?: string;
}

const lowlight = createLowlight(common);

const BY_EXTENSION: Record<string, string> = {
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "typescript",
  py: "python",
  pyi: "python",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  cs: "csharp",
  css: "css",
  scss: "scss",
  less: "less",
  html: "xml",
  htm: "xml",
  xml: "xml",
  svg: "xml",
  vue: "xml",
  json: "json",
  jsonc: "json",
  md: "markdown",
  markdown: "markdown",
  yml: "yaml",
  yaml: "yaml",
  toml: "ini",
  ini: "ini",
  cfg: "ini",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  rb: "ruby",
  php: "php",
  sql: "sql",
  swift: "swift",
  lua: "lua",
  r: "r",
  pl: "perl",
  m: "objectivec",
  graphql: "graphql",
  gql: "graphql",
};

/** The highlight.js language of a file, or undefined when none fits. */
export function languageOf(path: string): string | undefined {
  const name = path.split(/[\\/]/).at(-1) ?? "";
  if (/^(?:GNU)?makefile$/i.test(name) || name.endsWith(".mk")) return "makefile";
  if (/^Dockerfile/.test(name)) return "bash";
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  const language = ext ? BY_EXTENSION[ext] : undefined;
  return language && lowlight.registered(language) ? language : undefined;
}

/** Lines of a side larger than this are not highlighted (the view stays responsive). */
const MAX_SIDE_CHARS = 200_000;

interface HastNode {
  type: string;
  value?: string;
  properties?: { className?: string[] | string };
  children?: HastNode[];
}

/** Highlighted lines of a text: one segment list per line. */
export function highlightLines(text: string, language: string): Segment[][] {
  const lines: Segment[][] = [[]];
  const walk = (node: HastNode, classes: string) => {
    if (node.type === "text" && typeof node.value === "string") {
      const parts = node.value.split("\n");
      parts.forEach((part, i) => {
        if (i > 0) lines.push([]);
        if (part) lines.at(-1)!.push(classes ? { text: part, className: classes } : { text: part });
      });
      return;
    }
    const own = node.properties?.className;
    const names = Array.isArray(own) ? own.join(" ") : (own ?? "");
    const next = [classes, names].filter(Boolean).join(" ");
    for (const child of node.children ?? []) walk(child, next);
  };
  walk(lowlight.highlight(language, text) as unknown as HastNode, "");
  return lines;
}

/**
 * The segments of every line of a file's hunks, keyed by line object (old side for removed lines,
 * new side for the others); an empty map when the file has no known language or is too large.
 */
export function highlightFile(file: DiffFile, language = languageOf(file.path)): Map<DiffLine, Segment[]> {
  const out = new Map<DiffLine, Segment[]>();
  if (!language) return out;
  try {
    for (const hunk of file.hunks) {
      const oldSide = hunk.lines.filter((l) => l.kind === "context" || l.kind === "del");
      const newSide = hunk.lines.filter((l) => l.kind === "context" || l.kind === "add");
      for (const [side, only] of [
        [oldSide, "del"],
        [newSide, "add"],
      ] as const) {
        const text = side.map((l) => l.text).join("\n");
        if (text.length > MAX_SIDE_CHARS) continue;
        const highlighted = highlightLines(text, language);
        side.forEach((line, i) => {
          // Context lines take the new side's colours; removed lines the old side's.
          if (line.kind === only || (line.kind === "context" && only === "add")) out.set(line, highlighted[i] ?? [{ text: line.text }]);
        });
      }
    }
  } catch {
    out.clear();
  }
  return out;
}
