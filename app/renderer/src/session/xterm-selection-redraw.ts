// xterm.js 6.0 asks for its selection to be redrawn after every scroll of the terminal
// (CoreBrowserTerminal: onScroll → SelectionService.refresh), and its DOM renderer answers each
// redraw by rebuilding every row, selection or not: while a command streams, each terminal built
// all its rows twice per frame (bench:ui's renderer profile: about 245 ms of the 560 spent building
// rows in a turn). This skips a redraw when no selection is shown and none is to be drawn; one that
// draws, moves or clears a selection goes through as before.
// It reaches into xterm's private selection service (its names are kept in xterm's bundle); when
// they are not there (another xterm version), it changes nothing. Never throws.
import type { Terminal } from "@xterm/xterm";

interface SelectionService {
  hasSelection: boolean;
  refresh(isLinuxMouseSelection?: boolean): void;
}

export function skipIdleSelectionRedraws(terminal: Terminal): void {
  const service = (terminal as unknown as { _core?: { _selectionService?: Partial<SelectionService> } })._core?._selectionService;
  if (!service || typeof service.refresh !== "function" || typeof service.hasSelection !== "boolean") return;
  const refresh = service.refresh.bind(service);
  let shown = false; // a selection is drawn (or about to be)
  service.refresh = (isLinuxMouseSelection?: boolean) => {
    const selected = service.hasSelection === true;
    if (!selected && !shown) return;
    shown = selected;
    refresh(isLinuxMouseSelection);
  };
}
