// Where the window is: one screen at a time, and the page address that says so. A session is
// `?session=ID` (so a reload, a bookmark or a second tab opens it; `&at=N` at message N), History `?view=history`,
// Settings `?view=settings`, a project's page `?project=ID`, Welcome the bare address. Moving
// between screens pushes a history entry (Back returns); the fragment (the host's token, taken
// out at once by host-token.ts) is left alone. Pure apart from reading and writing the address;
// never throws.
export type Route =
  | { screen: "welcome" }
  | { screen: "project"; projectId: number }
  | { screen: "session"; sessionId: number; jumpTo: number | null }
  | { screen: "history" }
  | { screen: "settings" };

function positiveInt(value: string | null): number | null {
  if (value === null || !/^\d{1,15}$/.test(value)) return null;
  const n = Number(value);
  return n > 0 ? n : null;
}

/** The route an address stands for (anything unreadable is Welcome). */
export function routeFromSearch(search: string): Route {
  const params = new URLSearchParams(search);
  const session = positiveInt(params.get("session"));
  if (session !== null) return { screen: "session", sessionId: session, jumpTo: positiveIntOrZero(params.get("at")) };
  const project = positiveInt(params.get("project"));
  if (project !== null) return { screen: "project", projectId: project };
  const view = params.get("view");
  if (view === "history" || view === "settings") return { screen: view };
  return { screen: "welcome" };
}

function positiveIntOrZero(value: string | null): number | null {
  return value === "0" ? 0 : positiveInt(value);
}

/** The query string for a route ("" for Welcome); a session opened at a message says which (`&at=N`). */
export function searchFor(route: Route): string {
  switch (route.screen) {
    case "session":
      return `?session=${route.sessionId}${route.jumpTo !== null ? `&at=${route.jumpTo}` : ""}`;
    case "project":
      return `?project=${route.projectId}`;
    case "history":
    case "settings":
      return `?view=${route.screen}`;
    case "welcome":
      return "";
  }
}

/** Puts the route in the address: a new history entry when it changed, else nothing. */
export function showInAddress(route: Route, replace = false): void {
  try {
    const url = new URL(window.location.href);
    const search = searchFor(route);
    if (url.search === search) return;
    const next = `${url.pathname}${search}${url.hash}`;
    if (replace) window.history.replaceState(window.history.state, "", next);
    else window.history.pushState(null, "", next);
  } catch {
    // An address the page may not rewrite (some file: URLs): the screen still changes.
  }
}
