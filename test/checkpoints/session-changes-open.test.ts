// Opening a session asks for its checkpoints (checkpoints.list -> sessionChanges): a session without
// any must answer without reading its transcript (100,000 messages would block the main process),
// while a session with checkpoints, its own or its fork parent's, still gets its turns.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, FakeSession, makeService, tempDir, write } from "./helpers.ts";

const dirs: string[] = [];
const services: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  cleanup(...dirs.splice(0));
});

function setup() {
  const project = tempDir("lathe-cp-project-");
  const data = tempDir("lathe-cp-data-");
  dirs.push(project, data);
  write(project, "a.txt", "1\n");
  const { cp } = makeService(data);
  services.push(cp);
  return { project, cp };
}

describe("the checkpoints of a session being opened", () => {
  it("are an empty list, read without the transcript, when no turn of the session took one", async () => {
    const { project, cp } = setup();
    const session = new FakeSession(cp, project, 7);
    for (let i = 0; i < 1000; i++) session.user(`message ${i}`);
    expect(await cp.sessionChanges(session, 7)).toEqual([]);
    expect(session.transcriptReads).toBe(0);
  });

  it("list the turns of a session with checkpoints, and of a fork whose parent has them", async () => {
    const { project, cp } = setup();
    const parent = new FakeSession(cp, project, 1);
    parent.user("change a");
    await parent.turn([{ name: "bash" }], () => write(project, "a.txt", "2\n"));
    const [turn] = await cp.sessionChanges(parent, 1);
    expect(turn!.files.map((f) => f.path)).toEqual(["a.txt"]);
    expect(parent.transcriptReads).toBe(1);

    // Session 12 is not yet known to the checkpoint store, so only the parent's turns can answer.
    const fork = new FakeSession(cp, project, 12);
    fork.messages.push(...parent.messages);
    fork.parents = [{ sessionId: 1, forkPosition: parent.messages.length - 1 }];
    expect((await cp.sessionChanges(fork, 12)).map((t) => t.key)).toEqual([turn!.key]);
    expect(fork.transcriptReads).toBe(1);
  });
});
