// The OS keyring through Electron's safeStorage (Keychain, DPAPI, libsecret/kwallet). On Linux
// without a keyring, safeStorage falls back to a hard-coded key ("basic_text"): that is plain text
// in all but name, so Lathe treats it as no keyring at all and refuses to store keys.
import { safeStorage } from "electron";
import type { SecretStore } from "../settings/settings-service.ts";

export function electronSecretStore(): SecretStore {
  const backend = process.platform === "linux" ? safeStorage.getSelectedStorageBackend() : "os";
  const available = safeStorage.isEncryptionAvailable() && backend !== "basic_text" && backend !== "unknown";
  return {
    available,
    unavailableReason: available ? undefined : "No OS keyring (such as GNOME Keyring or KWallet) is available to encrypt API keys.",
    encrypt: (plain) => safeStorage.encryptString(plain).toString("base64"),
    decrypt: (sealed) => safeStorage.decryptString(Buffer.from(sealed, "base64")),
  };
}
