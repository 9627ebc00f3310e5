// A confirmation: a question, what follows, and two buttons; the safe one has the focus, Esc is No.
import { useEffect, useRef } from "react";
import { Modal } from "./Modal";

export interface Confirmation {
  title: string;
  message: string;
  confirmLabel: string;
  cancelLabel?: string;
}

export function ConfirmDialog({ confirmation, onAnswer }: { confirmation: Confirmation; onAnswer: (yes: boolean) => void }) {
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <Modal label={confirmation.title} onClose={() => onAnswer(false)} role="alertdialog">
      <h2>{confirmation.title}</h2>
      <p>{confirmation.message}</p>
      <div className="actions">
        <button ref={cancel} onClick={() => onAnswer(false)}>
          {confirmation.cancelLabel ?? "Cancel"}
        </button>
        <button className="danger" onClick={() => onAnswer(true)}>
          {confirmation.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
