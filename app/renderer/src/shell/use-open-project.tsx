// Opening a folder as a project, with a confirmation first when the folder is the home folder,
// the root of the file system or a folder holding the home folder (projects.resolve says which;
// projects.open refuses those without `confirmed`). Returns the project, or null when the person
// said no.
import { useCallback, useRef, useState, type ReactNode } from "react";
import type { Project } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { unwrap } from "../state/api-hooks";
import { ConfirmDialog, type Confirmation } from "./ConfirmDialog";

const BROAD_TEXT = {
  home: (f: string) => `${f} is your home folder.`,
  root: (f: string) => `${f} is the root of the file system.`,
  "above-home": (f: string) => `${f} holds your home folder.`,
};

export function useOpenProject(): { openProject: (folder: string) => Promise<Project | null>; dialog: ReactNode } {
  const [asking, setAsking] = useState<Confirmation | null>(null);
  const answer = useRef<((yes: boolean) => void) | null>(null);

  const openProject = useCallback(async (folder: string): Promise<Project | null> => {
    const api = getApi();
    const resolved = await unwrap(api.projects.resolve({ folder }));
    if (resolved.broad) {
      const yes = await new Promise<boolean>((resolve) => {
        answer.current = resolve;
        setAsking({
          title: "Open this whole folder as a project?",
          message: `${BROAD_TEXT[resolved.broad!](resolved.folder)} As a project, the agent could read, run and change anything in it. Usually a project is one repository or folder of work.`,
          confirmLabel: "Open it anyway",
          cancelLabel: "Cancel",
        });
      });
      if (!yes) return null;
      return unwrap(api.projects.open({ folder: resolved.folder, confirmed: true }));
    }
    return unwrap(api.projects.open({ folder: resolved.folder }));
  }, []);

  const dialog = asking ? (
    <ConfirmDialog
      confirmation={asking}
      onAnswer={(yes) => {
        setAsking(null);
        answer.current?.(yes);
        answer.current = null;
      }}
    />
  ) : null;
  return { openProject, dialog };
}
