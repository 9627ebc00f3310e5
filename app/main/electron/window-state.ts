// Remembers the main window's size and position between runs, in a small JSON file in the user
// data folder. Plain Node (no electron import): a damaged file just means default bounds.
import { readFileSync, writeFileSync } from "node:fs";
import { DEFAULT_BOUNDS, type WindowBounds } from "./window-config.ts";

export function loadWindowState(file: string): WindowBounds {
  try {
    const raw = JSON.parse(readFileSync(file, "utf8")) as Partial<WindowBounds>;
    const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? Math.round(v) : undefined);
    const width = num(raw.width);
    const height = num(raw.height);
    if (!width || !height) return DEFAULT_BOUNDS;
    return { x: num(raw.x), y: num(raw.y), width, height, maximized: raw.maximized === true };
  } catch {
    return DEFAULT_BOUNDS;
  }
}

export function saveWindowState(file: string, bounds: WindowBounds): void {
  try {
    writeFileSync(file, JSON.stringify(bounds), { mode: 0o600 });
  } catch {
    // Not being able to remember the window's place is not worth bothering the user about.
  }
}
