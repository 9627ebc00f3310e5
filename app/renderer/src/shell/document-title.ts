// The tab's title: the screen, or the session's title and state, so a tab in the background says
// when it waits for you ("● Fix tests — waiting for you · Lathe"). Pure.
import type { Badge } from "./session-directory";

const STATE_WORDS: Record<Badge, string> = { approval: "waiting for you", running: "running", failed: "failed" };

export function sessionDocumentTitle(title: string, badge: Badge | null): string {
  if (!badge) return `${title} · Lathe`;
  const dot = badge === "failed" ? "" : "● ";
  return `${dot}${title} — ${STATE_WORDS[badge]} · Lathe`;
}

export function screenDocumentTitle(screen: "welcome" | "project" | "history" | "settings", projectName?: string): string {
  switch (screen) {
    case "welcome":
      return "Lathe";
    case "project":
      return `${projectName ?? "Project"} · Lathe`;
    case "history":
      return "History · Lathe";
    case "settings":
      return "Settings · Lathe";
  }
}
