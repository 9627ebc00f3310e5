// The axe-core accessibility scan of what a page shows now: axe's own script (the pinned npm
// package) evaluated in the page (through the DevTools protocol, so the page's CSP does not apply),
// then axe.run over the whole document. Returns the serious and critical violations, one line each
// with the rule, its help and where; the caller decides what to accept (nothing, in these suites).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeNode {
  target: unknown[];
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: "minor" | "moderate" | "serious" | "critical" | null;
  help: string;
  nodes: AxeNode[];
}

export async function seriousViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === "object");
  if (!loaded) await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) =>
      v.nodes
        .slice(0, 5)
        .map((n) => `${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(n.target)}${n.failureSummary ? ` (${n.failureSummary.replace(/\s+/g, " ").slice(0, 300)})` : ""}`),
    );
}
