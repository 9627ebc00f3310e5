// Opening a session asks for its checkpoints (checkpoints.list -> sessionChanges): it must answer
// without reading its transcript (100,000 messages would block the main process), whether the
// session has none or has turns with checkpoints, its own or its fork parent's: each turn is read
// from its one message at the place recorded when its checkpoint was asked for. Turns an older
// Lathe recorded without a place are still listed, from the whole transcript.
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
    expect(turn).toMatchObject({ position: 1, userPosition: 0 });
    expect(parent.transcriptReads).toBe(0);
    expect(parent.messageReads).toBe(1);

    // Session 12 is not yet known to the checkpoint store, so only the parent's turns can answer.
    const fork = new FakeSession(cp, project, 12);
    fork.messages.push(...parent.messages);
    fork.parents = [{ sessionId: 1, forkPosition: parent.messages.length - 1 }];
    expect((await cp.sessionChanges(fork, 12)).map((t) => t.key)).toEqual([turn!.key]);
    expect(fork.transcriptReads).toBe(0);
  });

  it("read one message per turn, in transcript order, however long the session", async () => {
    const { project, cp } = setup();
    const session = new FakeSession(cp, project, 3);
    for (let i = 0; i < 2000; i++) session.user(`message ${i}`);
    session.user("first change");
    const first = await session.turn([{ name: "write", arguments: { path: "b.txt" } }], () => write(project, "b.txt", "b\n"));
    for (let i = 0; i < 2000; i++) session.user(`more ${i}`);
    const second = await session.turn([{ name: "bash" }, { name: "edit", arguments: { path: "a.txt" } }], () => write(project, "a.txt", "3\n"));
    const turns = await cp.sessionChanges(session, 3);
    expect(turns.map((t) => [t.key, t.position, t.userPosition])).toEqual([
      [first, 2001, 2000],
      [second, 4003, 4002],
    ]);
    expect(turns.map((t) => t.files.map((f) => [f.path, f.certain]))).toEqual([[["b.txt", true]], [["a.txt", true]]]);
    expect(session.transcriptReads).toBe(0);
    expect(session.messageReads).toBe(2);
  });

  it("leave out a parent's turn taken after the fork, and a place whose message is not the turn", async () => {
    const { project, cp } = setup();
    const parent = new FakeSession(cp, project, 1);
    parent.user("change a");
    const before = await parent.turn([{ name: "bash" }], () => write(project, "a.txt", "2\n"));
    const forkPosition = parent.messages.length - 1;
    parent.user("change a again");
    await parent.turn([{ name: "bash" }], () => write(project, "a.txt", "3\n"));
    const fork = new FakeSession(cp, project, 12);
    fork.messages.push(...parent.messages.slice(0, forkPosition + 1));
    fork.parents = [{ sessionId: 1, forkPosition }];
    // The fork's own message where the parent's second turn is: a different turn, never listed as it.
    fork.user("something else");
    fork.messages.push({ ...parent.messages[forkPosition + 2]! });
    expect((await cp.sessionChanges(fork, 12)).map((t) => t.key)).toEqual([before]);
    expect(fork.transcriptReads).toBe(0);
  });

  it("list a turn at its latest place when its key comes back (a deleted session's id reused, the same call ids)", async () => {
    const { project, cp } = setup();
    const gone = new FakeSession(cp, project, 5);
    gone.user("change a");
    const key = await gone.turn([{ name: "bash" }], () => write(project, "a.txt", "2\n"));
    const reused = new FakeSession(cp, project, 5);
    for (let i = 0; i < 3; i++) reused.user(`other ${i}`);
    expect(await reused.turn([{ name: "bash" }], () => write(project, "a.txt", "3\n"))).toBe(key);
    expect((await cp.sessionChanges(reused, 5)).map((t) => [t.key, t.position, t.userPosition])).toEqual([[key, 3, 2]]);
  });

  it("read the whole transcript only for turns recorded without a place (an older Lathe's)", async () => {
    const { project, cp } = setup();
    const session = new FakeSession(cp, project, 4);
    session.user("change a");
    session.recordPlaces = false;
    const old = await session.turn([{ name: "bash" }], () => write(project, "a.txt", "2\n"));
    session.recordPlaces = true;
    session.user("change a again");
    const placed = await session.turn([{ name: "bash" }], () => write(project, "a.txt", "3\n"));
    const turns = await cp.sessionChanges(session, 4);
    expect(turns.map((t) => [t.key, t.position, t.userPosition])).toEqual([
      [old, 1, 0],
      [placed, 4, 3],
    ]);
    expect(session.transcriptReads).toBe(1);
  });
});
