// The slow, obvious scan that the redaction's fast one must agree with: every rule's expression
// over the whole text (no automaton, no windows, no prefilter), each match kept when it holds one
// of the rule's keywords and the rule set's own checks keep it (keepsFinding), and the configured
// literals found by indexOf. (The scanner also keeps a match whose keyword is only near it, as
// gitleaks looks for keywords anywhere in a file: where this matters, the two differ.) Returns the
// secrets' spans, merged where they overlap, as the scanner's `find` does. For a sample of the
// bench's text (and tests): it takes seconds per megabyte. Private key blocks are not covered.
import { keepsFinding, secretRules } from "../../app/main/permissions/secret-rules.ts";

export interface ReferenceSpan {
  start: number;
  end: number;
}

export function referenceSpans(text: string, literals: readonly string[] = []): ReferenceSpan[] {
  const spans: ReferenceSpan[] = [];
  for (const rule of secretRules().rules) {
    const re = new RegExp(rule.regex.source, rule.hasGroups ? "gd" + rule.regex.flags.replace("g", "") : rule.regex.flags);
    for (const m of text.matchAll(re)) {
      if (m[0].length === 0) continue;
      const lower = m[0].toLowerCase();
      if (!rule.keywords.some((k) => lower.includes(k))) continue;
      const group = rule.hasGroups && !rule.wholeMatch ? (rule.secretGroup > 0 ? rule.secretGroup : m.findIndex((g, i) => i > 0 && g !== undefined && g.length > 0)) : 0;
      const range = group > 0 ? m.indices?.[group] : undefined;
      const secret = range ? m[group]! : m[0];
      if (!keepsFinding(rule, text, m, secret)) continue;
      spans.push(range ? { start: range[0], end: range[1] } : { start: m.index, end: m.index + m[0].length });
    }
  }
  for (const literal of literals) {
    for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, at + literal.length)) spans.push({ start: at, end: at + literal.length });
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: ReferenceSpan[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}
