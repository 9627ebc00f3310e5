// A fresh store for every test of a file (or of the `describe` it is called in): before each test
// a new temporary data folder and a store opened in it; after each test the store is closed and
// the folder removed. `onOpen` receives the store (and its folder) before the test runs, so a
// file keeps its own `let store` and any per-test set-up (a project, sessions) next to it.
import fs from "node:fs";
import { afterEach, beforeEach } from "vitest";
import { openStore, type SessionStore } from "../../../app/main/store/index.ts";
import { tempDir } from "../helpers.ts";

export function freshStoreForEachTest(onOpen: (store: SessionStore, dir: string) => void): void {
  let dir: string | undefined;
  let store: SessionStore | undefined;
  beforeEach(() => {
    dir = tempDir();
    store = openStore({ dataDir: dir }).store;
    onOpen(store, dir);
  });
  afterEach(() => {
    store?.close();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
    store = undefined;
    dir = undefined;
  });
}
