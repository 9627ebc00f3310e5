// Banners above the screen: the connection to the headless host (lost and reconnecting, or refused
// because the host restarted with a new token), and notices from the host (start-up repairs, save
// failures), dismissible.
import { useEffect, useState } from "react";
import { hostToken } from "../api/host-token";
import type { ConnectionStatus } from "../api/ws-client";

/** How long "connecting" may last before it is worth a banner. */
const CONNECTING_GRACE_MS = 1500;

export function ConnectionBanner({ status }: { status: ConnectionStatus }) {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    if (status !== "connecting") return;
    const timer = setTimeout(() => setSlow(true), CONNECTING_GRACE_MS);
    return () => {
      clearTimeout(timer);
      setSlow(false);
    };
  }, [status]);
  if (status === "refused") {
    return (
      <div className="banner error" role="status" data-connection="refused">
        {hostToken() === "" ? (
          <span>
            <strong>The host refused this page:</strong> it has no access token. Open the address the host printed when it started (<code>http://127.0.0.1:…/#token=…</code>).
          </span>
        ) : (
          <span>
            <strong>The host refused this page:</strong> its access token is no longer valid, so the host was probably restarted (each start makes a new token). Open the address it
            printed when it started (<code>http://127.0.0.1:…/#token=…</code>) in this tab. To keep one address across restarts, start the host with <code>--token-file</code>.
          </span>
        )}
      </div>
    );
  }
  if (status === "closed" || (status === "connecting" && slow)) {
    return (
      <div className="banner warning" role="status" data-connection={status}>
        {status === "closed" ? "Lost the connection to the Lathe host; reconnecting…" : "Connecting to the Lathe host…"}
      </div>
    );
  }
  return null;
}

export function NoticeBanner({ message, onDismiss }: { message: string; onDismiss: () => void }) {
  return (
    <div className="banner warning" role="status">
      <span>{message}</span>
      <span className="spacer" />
      <button className="small" onClick={onDismiss} aria-label="Dismiss notice">
        Dismiss
      </button>
    </div>
  );
}
