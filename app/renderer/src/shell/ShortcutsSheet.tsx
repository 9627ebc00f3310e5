// The shortcuts sheet (`?`): every key of the keyboard model (keyboard.ts), in a modal dialog that
// Esc or Close dismisses, giving the focus back to where it was.
import { useEffect, useRef } from "react";
import { Modal } from "./Modal";

interface Group {
  title: string;
  keys: [keys: string[], what: string][];
}

export const SHORTCUTS: Group[] = [
  {
    title: "Anywhere",
    keys: [
      [["?"], "Show this sheet"],
      [["Esc"], "Close a dialog or menu; leave a terminal; else stop the running agent"],
      [["Tab", "Shift+Tab"], "Move between controls (the focus ring shows where you are)"],
      [["Alt+↑", "Alt+↓"], "Previous / next session in the sidebar"],
    ],
  },
  {
    title: "Composer",
    keys: [
      [["Enter"], "Send (while the agent runs: steer or queue, as chosen)"],
      [["Shift+Enter"], "New line"],
      [["Esc"], "Stop the agent"],
    ],
  },
  {
    title: "Permission requests",
    keys: [
      [["y"], "Allow once"],
      [["s"], "Allow for this session"],
      [["a"], "Always allow in this project"],
      [["o"], "Run a command once outside the sandbox"],
      [["n"], "Deny, with an optional reason"],
    ],
  },
  {
    title: "Terminals",
    keys: [
      [["Tab"], "Reach a command's terminal while it waits for input"],
      [["Tab", "Esc"], "Leave the terminal (Esc goes back to the composer)"],
    ],
  },
  {
    title: "In the desktop app",
    keys: [
      [["Ctrl+O"], "Open a project"],
      [["Ctrl+N"], "New session in the current project"],
      [["Ctrl+Shift+H"], "History"],
      [["Ctrl+,"], "Settings"],
    ],
  },
];

export function ShortcutsSheet({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  return (
    <Modal label="Keyboard shortcuts" onClose={onClose} className="shortcuts-sheet">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <div className="shortcuts">
        {SHORTCUTS.map((group) => (
          <section key={group.title} aria-label={group.title}>
            <h3>{group.title}</h3>
            <dl>
              {group.keys.map(([keys, what]) => (
                <div key={what}>
                  <dt>
                    {keys.map((k, i) => (
                      <span key={k}>
                        {i > 0 && " "}
                        <kbd>{k}</kbd>
                      </span>
                    ))}
                  </dt>
                  <dd>{what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
      <div className="actions">
        <button ref={close} onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}
