// The design tokens in styles.css: every text colour meets WCAG AA (4.5:1) on the backgrounds it is
// used on and focus rings and control borders 3:1, in both themes; and the rules below the token
// block use the tokens (no literal colours, no font sizes outside the type scale, none under 12 px).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";

const css = readFileSync(join(import.meta.dirname, "..", "..", "app", "renderer", "src", "styles.css"), "utf8");
const tokenBlock = /\/\* -+ Design tokens -+ \*\/\s*:root \{([\s\S]*?)\n\}/.exec(css)?.[1] ?? "";
const rules = css.slice(css.indexOf("/* ---------- Base"));

type Theme = "light" | "dark";
function tokens(theme: Theme): Map<string, string> {
  const out = new Map<string, string>();
  for (const [, name, value] of tokenBlock.matchAll(/--([\w-]+):\s*([^;]+);/g)) {
    const pair = /^light-dark\(\s*([^,]+?)\s*,\s*([^)]+?)\s*\)$/.exec(value!.trim());
    out.set(name!, pair ? (theme === "light" ? pair[1]! : pair[2]!) : value!.trim());
  }
  return out;
}

function luminance(hex: string): number {
  const h = hex.replace("#", "");
  const full = h.length === 3 ? [...h].map((c) => c + c).join("") : h;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const v = parseInt(full.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const SURFACES = ["bg", "bg-alt", "bg-raised", "bg-hover", "bg-selected"];
/** [foreground, background, minimum ratio]. */
const PAIRS: [string, string, number][] = [
  ...SURFACES.flatMap((s): [string, string, number][] => [
    ["text", s, 4.5],
    ["muted", s, 4.5],
    ["accent", s, 4.5],
    ["err", s, 4.5],
    ["focus", s, 3],
    ["border-strong", s, 3],
  ]),
  ["ok", "bg", 4.5],
  ["ok", "bg-raised", 4.5],
  ["warn", "bg", 4.5],
  ["warn", "bg-raised", 4.5],
  ["accent-text", "accent", 4.5],
  ["err", "err-bg", 4.5],
  ["warn", "warn-bg", 4.5],
  ["text", "warn-bg", 4.5],
  ["text", "err-bg", 4.5],
  ["text", "code-bg", 4.5],
  ["muted", "code-bg", 4.5],
  ["text", "mark", 4.5],
  ["text", "add-bg", 4.5],
  ["text", "del-bg", 4.5],
  ["muted", "add-bg", 4.5],
  ["muted", "del-bg", 4.5],
  ["syntax-keyword", "code-bg", 4.5],
  ["syntax-string", "code-bg", 4.5],
  ["syntax-number", "code-bg", 4.5],
  ["syntax-title", "code-bg", 4.5],
  ["syntax-type", "code-bg", 4.5],
];

describe("design tokens", () => {
  test("the token block defines the type scale with a 14 px body, the spacing scale and radii", () => {
    const t = tokens("light");
    expect(t.get("text-md")).toBe("14px");
    expect([...t.keys()].filter((k) => k.startsWith("text-"))).toEqual(["text-xs", "text-sm", "text-md", "text-lg", "text-xl", "text-2xl", "text-code"]);
    for (const k of ["space-1", "space-2", "space-3", "space-4", "space-5", "space-6", "radius-sm", "radius"]) expect(t.has(k), k).toBe(true);
    expect(css).toMatch(/body \{[^}]*font: var\(--text-md\)/);
  });

  for (const theme of ["light", "dark"] as const) {
    test(`${theme} theme: text 4.5:1 and focus rings and control borders 3:1 on their backgrounds`, () => {
      const t = tokens(theme);
      const failures = PAIRS.flatMap(([fg, bg, min]) => {
        const a = t.get(fg);
        const b = t.get(bg);
        if (!a || !b) return [`${fg} on ${bg}: token missing`];
        const ratio = contrast(a, b);
        return ratio >= min ? [] : [`${fg} ${a} on ${bg} ${b}: ${ratio.toFixed(2)} < ${min}`];
      });
      expect(failures).toEqual([]);
    });
  }

  test("rules use the tokens: no literal colours, font sizes from the type scale only", () => {
    const withoutComments = rules.replace(/\/\*[\s\S]*?\*\//g, "");
    expect(withoutComments.match(/#[0-9a-fA-F]{3,8}\b/g) ?? []).toEqual([]);
    const sizes = [...withoutComments.matchAll(/font-size:\s*([^;}]+)/g)].map((m) => m[1]!.trim());
    expect(sizes.filter((s) => !/^var\(--text-(xs|sm|md|lg|xl|2xl|code)\)$/.test(s) && s !== "inherit")).toEqual([]);
    const shorthands = [...withoutComments.matchAll(/\bfont:\s*([^;}]+)/g)].map((m) => m[1]!.trim());
    expect(shorthands.filter((s) => s !== "inherit" && !/^var\(--text-(xs|sm|md|lg|xl|2xl|code)\)/.test(s))).toEqual([]);
  });

  test("contrast() agrees with WCAG's own examples", () => {
    expect(contrast("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrast("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
  });
});
