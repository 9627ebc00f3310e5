// The project the checkpoint benches snapshot: `files` TypeScript files of pseudo-random lines
// (the same bytes every run) spread over 50 × 40 folders, `totalMb` in all, beside a
// node_modules folder of 1,000 files that checkpoints exclude. And `du` for the store's growth.
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export function sampleFileName(project: string, i: number): string {
  return path.join(project, `src${i % 50}`, `mod${Math.floor(i / 50) % 40}`, `file${i}.ts`);
}

export function makeSampleProject(project: string, files: number, totalMb: number): void {
  const perFile = Math.floor((totalMb * 1024 * 1024) / files);
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff).toString(36);
  for (let i = 0; i < files; i++) {
    const file = sampleFileName(project, i);
    mkdirSync(path.dirname(file), { recursive: true });
    const lines: string[] = [];
    let size = 0;
    while (size < perFile) {
      const line = `export const v${size} = compute("${random()}", ${i}); // ${random()}`;
      lines.push(line);
      size += line.length + 1;
    }
    writeFileSync(file, lines.join("\n"));
  }
  mkdirSync(path.join(project, "node_modules", "dep"), { recursive: true });
  for (let i = 0; i < 1000; i++) writeFileSync(path.join(project, "node_modules", "dep", `m${i}.js`), "module.exports = 1;\n".repeat(50));
}

/** Bytes of the files under `dir`. */
export function duSync(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? duSync(full) : statSync(full).size;
  }
  return total;
}
