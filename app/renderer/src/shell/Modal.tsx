// A modal dialog: the native <dialog>, opened with showModal() (focus stays inside, the rest of
// the window is inert, Esc cancels), closed when unmounted; the focus goes back to the element that
// had it before.
import { useEffect, useRef, type ReactNode } from "react";

export function Modal({
  label,
  onClose,
  className,
  children,
  role,
}: {
  label: string;
  onClose: () => void;
  className?: string;
  children: ReactNode;
  role?: "dialog" | "alertdialog";
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const latestClose = useRef(onClose);
  useEffect(() => {
    latestClose.current = onClose;
  });
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      latestClose.current();
    };
    dialog.addEventListener("cancel", onCancel);
    return () => {
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      if (previous?.isConnected) previous.focus();
    };
  }, []);
  return (
    <dialog ref={ref} className={`modal${className ? ` ${className}` : ""}`} aria-label={label} role={role}>
      {children}
    </dialog>
  );
}
