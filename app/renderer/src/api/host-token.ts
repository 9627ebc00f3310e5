// The headless host's access token, as the page keeps it. It arrives once in the address the host
// printed (`#token=…`, or `?token=…`), is kept in sessionStorage (this tab and this origin only;
// it survives a reload) and is taken out of the address at once, with history.replaceState, so it
// is not left in the address bar, the history or a bookmark; every other parameter (`?session=`)
// stays. Never throws: without a token the host refuses the connection and the page says so.
// A new address pasted into the same tab changes only the fragment, which does not load the page
// again: watchForNewToken() keeps that token and reloads, so the tab connects with it.
const STORAGE_KEY = "lathe.hostToken";
let token: string | undefined;

export function hostToken(): string {
  if (token !== undefined) return token;
  const url = new URL(window.location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const fromAddress = fragment.get("token") ?? url.searchParams.get("token");
  if (fromAddress) {
    try {
      sessionStorage.setItem(STORAGE_KEY, fromAddress);
    } catch {
      // Storage turned off: this load still works; a reload needs the printed address again.
    }
    fragment.delete("token");
    url.searchParams.delete("token");
    url.hash = fragment.size > 0 ? fragment.toString() : "";
    window.history.replaceState(window.history.state, "", `${url.pathname}${url.search}${url.hash}`);
    return (token = fromAddress);
  }
  try {
    return (token = sessionStorage.getItem(STORAGE_KEY) ?? "");
  } catch {
    return (token = "");
  }
}

/** Reloads the page when a new `#token=` arrives in its address (pasted into this tab). */
export function watchForNewToken(): void {
  window.addEventListener("hashchange", () => {
    const fresh = new URLSearchParams(window.location.hash.slice(1)).get("token");
    if (!fresh) return;
    token = undefined;
    hostToken();
    window.location.reload();
  });
}
