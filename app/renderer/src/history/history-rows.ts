// The history list as flat rows for the virtualizer: a header per project, its loaded sessions,
// then a "load more" row while the project has more. Pure.
import type { Project, Session } from "../../../shared/ipc/contract";

export interface ProjectSessions {
  sessions: Session[];
  hasMore: boolean;
  loading: boolean;
}

export type HistoryRow =
  | { kind: "project"; key: string; project: Project; count: number }
  | { kind: "session"; key: string; session: Session; project: Project }
  | { kind: "more"; key: string; project: Project; loading: boolean };

export function historyRows(projects: readonly Project[], byProject: ReadonlyMap<number, ProjectSessions>, hidden: ReadonlySet<number>): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (const project of projects) {
    const group = byProject.get(project.id);
    const sessions = (group?.sessions ?? []).filter((s) => !hidden.has(s.id));
    if (group && sessions.length === 0 && !group.hasMore) continue;
    rows.push({ kind: "project", key: `p${project.id}`, project, count: sessions.length });
    for (const session of sessions) rows.push({ kind: "session", key: `s${session.id}`, session, project });
    if (!group || group.hasMore) rows.push({ kind: "more", key: `more${project.id}`, project, loading: group?.loading ?? true });
  }
  return rows;
}
