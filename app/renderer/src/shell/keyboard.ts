// The keyboard model, in one place (README "Keyboard"; the `?` sheet lists the same keys):
// - Esc, from anywhere in the window: closes an open dialog or menu first (a modal <dialog>
//   closes itself; an open popover is closed here), leaves a terminal (focus goes to the
//   composer); otherwise, while a session is shown and its agent runs, stops the run. A control
//   that uses Esc itself (a field's "cancel") calls preventDefault, and then nothing more happens.
// - `?` opens the shortcuts sheet, unless the focus is in a text field or a terminal.
// - Alt+↑ / Alt+↓ open the previous / next session of the sidebar.
// - After a permission answer the focus goes back to the composer (unless a next request took it).
// - A terminal takes keys only while its command runs and waits for input (or while it has the
//   focus it got then); otherwise it cannot be reached with Tab and its keys do nothing. Tab and
//   Esc always leave it.
// Everything here must not throw.
import type { Terminal } from "@xterm/xterm";

export interface GlobalKeyActions {
  /** Stops the shown session's run; false when no run was going (Esc then does nothing). */
  stopRun: () => boolean;
  openShortcuts: () => void;
  /** Opens the session `delta` places away in the sidebar's order. */
  stepSession: (delta: 1 | -1) => void;
}

const COMPOSER_SELECTOR = "textarea[data-composer]";

/** Moves the focus to the shown session's composer; false when there is none. */
export function focusComposer(): boolean {
  const composer = document.querySelector<HTMLTextAreaElement>(COMPOSER_SELECTOR);
  if (!composer || composer.disabled) return false;
  composer.focus();
  return true;
}

/** Whether keys typed at `target` are text (a field, an editable element, a terminal). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.closest(".terminal")) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file"].includes(target.type);
}

/** Closes an open popover or menu (not a modal dialog, which closes itself); true if one was open. */
function closeOpenMenu(): boolean {
  const open = document.querySelector<HTMLDetailsElement>("details.popover[open], details[data-menu][open]");
  if (!open) return false;
  open.open = false;
  open.querySelector<HTMLElement>("summary")?.focus();
  return true;
}

/** The window's keydown handler (on document, after the components' own handlers). */
export function handleGlobalKey(e: KeyboardEvent, actions: GlobalKeyActions): void {
  if (e.defaultPrevented || e.isComposing) return;
  if (e.key === "Escape") {
    // A modal <dialog>, or a dialog drawn in the page (the rewind preview), closes itself.
    if (document.querySelector("dialog[open]") || (e.target instanceof Element && e.target.closest('[role="dialog"], [role="alertdialog"]'))) return;
    if (closeOpenMenu()) return e.preventDefault();
    const active = document.activeElement;
    if (active instanceof HTMLElement && active.closest(".terminal")) {
      if (focusComposer()) e.preventDefault();
      return;
    }
    if (actions.stopRun()) e.preventDefault();
    return;
  }
  if (e.key === "?" && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target) && !document.querySelector("dialog[open]")) {
    e.preventDefault();
    actions.openShortcuts();
    return;
  }
  if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && (e.key === "ArrowUp" || e.key === "ArrowDown") && !document.querySelector("dialog[open]")) {
    e.preventDefault();
    actions.stepSession(e.key === "ArrowUp" ? -1 : 1);
  }
}

export interface TerminalKeys {
  /** The command's state changed. */
  update(running: boolean, waitingForInput: boolean): void;
  dispose(): void;
}

/**
 * The keyboard policy of one command's terminal (see the header): Tab and Esc are never the
 * terminal's; other keys reach the command only while it runs and either waits for input or the
 * terminal holds the focus it was given while it waited (typing echoes, which briefly ends
 * "waiting"). Its hidden input can be reached with Tab only while the command waits for input.
 */
export function terminalKeyPolicy(terminal: Terminal): TerminalKeys {
  let running = false;
  let waiting = false;
  let granted = false;
  const accepting = () => running && (waiting || granted);
  const apply = () => {
    terminal.options.disableStdin = !accepting();
    const input = terminal.textarea;
    if (input) input.tabIndex = running && (waiting || granted) ? 0 : -1;
  };
  terminal.attachCustomKeyEventHandler((e) => {
    if (e.key === "Tab" || e.key === "Escape") return false;
    return accepting();
  });
  const input = terminal.textarea;
  const onFocus = () => {
    granted = running && waiting;
    apply();
  };
  const onBlur = () => {
    granted = false;
    apply();
  };
  input?.addEventListener("focus", onFocus);
  input?.addEventListener("blur", onBlur);
  apply();
  return {
    update(nowRunning, nowWaiting) {
      running = nowRunning;
      waiting = nowWaiting;
      if (!running) granted = false;
      apply();
    },
    dispose() {
      input?.removeEventListener("focus", onFocus);
      input?.removeEventListener("blur", onBlur);
    },
  };
}
