// A turn that changes more files than a list shows (one bash command can create 100,000): the
// turn's review names the first MAX_LISTED_FILES with the total; the rewind preview names the
// files changed outside Lathe first (each needs a choice), gives totals over every file, and the
// rewind itself still covers every file, listed or not.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_LISTED_FILES } from "../../app/shared/ipc/checkpoint-schemas.ts";
import { bash, cleanup, FakeSession, makeService, tempDir, write } from "./helpers.ts";

const dirs: string[] = [];
const services: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  cleanup(...dirs.splice(0));
});

const MANY = MAX_LISTED_FILES + 150;

describe("a turn that changes more files than are listed", () => {
  it("lists the first ones with the total, previews with totals, and rewinds every file", async () => {
    const project = tempDir("lathe-cp-project-");
    const data = tempDir("lathe-cp-data-");
    dirs.push(project, data);
    write(project, "a.txt", "1\n");
    const { cp, rewinder } = makeService(data);
    services.push(cp);
    const session = new FakeSession(cp, project);
    const asked = session.user("make many files");
    await session.turn([{ name: "bash", arguments: { command: "…" } }], () => {
      bash(project, `mkdir gen && for i in $(seq 1 ${MANY}); do echo $i > gen/f-$i.txt; done`);
    });

    const [turn] = await cp.sessionChanges(session, session.sessionId);
    expect(turn!.fileCount).toBe(MANY);
    expect(turn!.files).toHaveLength(MAX_LISTED_FILES);
    expect(new Set(turn!.files.map((f) => f.path)).size).toBe(MAX_LISTED_FILES);
    expect(turn!.files.every((f) => f.status === "added" && f.toolCallIds.length === 1)).toBe(true);

    // You edit three of the agent's files (late in git's order, past the listed ones) and add two of your own.
    const edited = [997, 998, 999].map((i) => `gen/f-${i}.txt`);
    expect(turn!.files.filter((f) => edited.includes(f.path))).toEqual([]);
    for (const rel of edited) writeFileSync(path.join(project, rel), "mine\n");
    write(project, "mine/1.txt", "mine\n");
    write(project, "mine/2.txt", "mine\n");

    const preview = await rewinder.preview(session, session.sessionId, { position: asked });
    expect(preview.files).toHaveLength(MAX_LISTED_FILES);
    expect(preview.files.slice(0, 3).map((f) => [f.path, f.conflict])).toEqual(edited.map((p) => [p, true]));
    expect(preview.files.slice(3).some((f) => f.conflict)).toBe(false);
    expect(preview.totals).toEqual({ restore: 0, remove: MANY - 3, keep: 5, conflicts: 3 });

    // Restore one of the conflicts anyway: every agent file goes, listed or not; yours stay.
    const chosen = preview.files[0]!;
    const result = await rewinder.apply(session, preview.previewId, { restore: [chosen.id], destination: "project" });
    if (!("done" in result)) throw new Error("files changed since the preview");
    expect(result.done.removed).toBe(MANY - 2);
    const left = readdirSync(path.join(project, "gen")).sort();
    expect(left).toEqual(
      edited
        .filter((p) => p !== chosen.path)
        .map((p) => path.basename(p))
        .sort(),
    );
    expect(readFileSync(path.join(project, "mine/1.txt"), "utf8")).toBe("mine\n");
    expect(existsSync(path.join(project, "mine/2.txt"))).toBe(true);
    expect(readFileSync(path.join(project, "a.txt"), "utf8")).toBe("1\n");
  });
});
