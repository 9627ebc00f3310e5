// A SecretStore for tests, standing in for the OS keyring: reversible, but never plain text, so a
// test can check that a stored value is not the secret itself.
import type { SecretStore } from "../../../app/main/settings/settings-service.ts";

export const fakeKeyring: SecretStore = {
  available: true,
  encrypt: (plain) => `sealed:${Buffer.from(plain, "utf8").toString("base64").split("").reverse().join("")}`,
  decrypt: (sealed) => {
    if (!sealed.startsWith("sealed:")) throw new Error("not sealed by this keyring");
    return Buffer.from(sealed.slice(7).split("").reverse().join(""), "base64").toString("utf8");
  },
};
