// The Electron shell's NotificationPort (app/main/sessions/attention-notifier.ts): Electron's
// Notification class, passed in by main.ts, so this thin adapter is tested with a stand-in class.
// Nothing here decides when to notify or what to say.
import type { DesktopNotification, NotificationPort } from "../sessions/attention-notifier.ts";

/** What this adapter uses of Electron's Notification (main process). */
export interface NotificationClass {
  new (options: { title: string; body: string }): { on(event: "click", listener: () => void): unknown; show(): void };
  isSupported(): boolean;
}

export function electronNotificationPort(Notification: NotificationClass): NotificationPort {
  return {
    isSupported: () => Notification.isSupported(),
    show: ({ title, body }: DesktopNotification, onClick: () => void) => {
      const notification = new Notification({ title, body });
      notification.on("click", onClick);
      notification.show();
    },
  };
}
