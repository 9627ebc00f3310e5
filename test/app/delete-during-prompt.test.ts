// A session deleted while its prompt waits for the project's instruction files (read off the event
// loop before a run starts): the prompt is refused, the model is never asked and no tool runs.
// Found in review: the run started on the deleted session, wrote into the project, and nothing
// could stop it (sessions.abort no longer found the session).
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { startApp, type AppHarness } from "../support/app-harness.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

it("a prompt whose session is deleted before its run starts is refused, and nothing runs", async () => {
  app = await startApp({
    permissionMode: "full-auto",
    steps: [{ toolCalls: [{ name: "write", args: { path: "after-delete.txt", content: "written by a deleted session" } }] }, { text: "done" }],
  });
  writeFileSync(path.join(app.projectDir, "AGENTS.md"), "A rule.");
  const project = await app.call("projects.open", { folder: app.projectDir });
  const session = await app.call("sessions.create", { projectId: project.id });
  const prompted = app.raw("sessions.prompt", { sessionId: session.id, text: "go" });
  const deleted = app.raw("sessions.delete", { sessionId: session.id });
  expect(await deleted).toMatchObject({ ok: true });
  expect(await prompted).toEqual({ ok: false, error: { code: "not-found", message: "The session was closed or deleted before the message was sent." } });
  // Time for a run to have asked the model and written, had it started.
  await new Promise((r) => setTimeout(r, 500));
  expect(app.scripted.requests).toHaveLength(0);
  expect(existsSync(path.join(app.projectDir, "after-delete.txt"))).toBe(false);
});
