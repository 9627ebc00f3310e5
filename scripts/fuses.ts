// Electron fuses for the packaged app, flipped in electron-builder's afterPack hook (after the app
// is copied, before it is signed, as fuses require). FUSES is the single source of truth: the
// hook writes it into the binary and pack:check / test/packaging assert it.
//   RunAsNode off                        ELECTRON_RUN_AS_NODE cannot turn Lathe into a plain Node
//   EnableNodeOptionsEnvironmentVariable NODE_OPTIONS cannot inject code or flags
//   EnableNodeCliInspectArguments off    --inspect / --inspect-brk are ignored
//   OnlyLoadAppFromAsar on               the app is loaded from app.asar only, never a loose folder
//   EnableCookieEncryption on            cookies on disk are encrypted with the OS keyring key
import type { AfterPackContext } from "electron-builder";

/** Fuse name (as @electron/fuses spells FuseV1Options keys) to its state in a packaged Lathe. */
export const FUSES = {
  RunAsNode: false,
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  OnlyLoadAppFromAsar: true,
  EnableCookieEncryption: true,
} as const;

export type FuseName = keyof typeof FUSES;

/** electron-builder's Arch enum values for the builds that ship ad-hoc-signed arm64 code. */
const ARCH_ARM64 = 3;
const ARCH_UNIVERSAL = 4;

/**
 * The config object flipFuses takes, built from the module's own FuseV1Options/FuseVersion so the
 * option numbers always match the installed @electron/fuses. Throws on a fuse name it lacks.
 */
export function fuseConfig(
  fuses: { FuseVersion: { V1: string }; FuseV1Options: Record<string, number | string> },
  platform: string,
  arch: number,
): Record<string | number, unknown> {
  const config: Record<string | number, unknown> = {
    version: fuses.FuseVersion.V1,
    // Flipping fuses invalidates the ad-hoc signature that arm64 macOS requires; re-sign ad hoc
    // (electron-builder signs properly afterwards when a certificate is configured).
    resetAdHocDarwinSignature: (platform === "darwin" || platform === "mas") && (arch === ARCH_ARM64 || arch === ARCH_UNIVERSAL),
  };
  for (const [name, enabled] of Object.entries(FUSES)) {
    const option = fuses.FuseV1Options[name];
    if (typeof option !== "number") throw new Error(`@electron/fuses has no fuse named ${name}`);
    config[option] = enabled;
  }
  return config;
}

/** electron-builder afterPack hook: flips FUSES in the packaged Electron binary. */
export async function afterPack(context: AfterPackContext): Promise<void> {
  const fuses = await import("@electron/fuses");
  const config = fuseConfig(fuses, context.electronPlatformName, context.arch);
  // The packager knows the executable's name and extension per platform.
  await context.packager.addElectronFuses(context, config as never);
  console.log(
    `  • fuses flipped: ${Object.entries(FUSES)
      .map(([k, v]) => `${k}=${v ? "on" : "off"}`)
      .join(", ")}`,
  );
}

/** Reads the fuses of FUSES from an Electron binary: true/false, or "removed" by that build. */
export async function readFuses(binaryPath: string): Promise<Record<FuseName, boolean | "removed">> {
  const { getCurrentFuseWire, FuseV1Options } = await import("@electron/fuses");
  // The wire stores each fuse as one ASCII byte: "1" on, "0" off, "r" removed.
  const ON = 0x31,
    OFF = 0x30,
    REMOVED = 0x72;
  const wire = await getCurrentFuseWire(binaryPath);
  const result = {} as Record<FuseName, boolean | "removed">;
  for (const name of Object.keys(FUSES) as FuseName[]) {
    const state = wire[FuseV1Options[name]];
    if (state === ON) result[name] = true;
    else if (state === OFF) result[name] = false;
    else if (state === REMOVED) result[name] = "removed";
    else throw new Error(`fuse ${name} is missing from the wire of ${binaryPath}`);
  }
  return result;
}

/** Names of the fuses whose state in a binary differs from FUSES. */
export function wrongFuses(actual: Record<FuseName, boolean | "removed">): FuseName[] {
  return (Object.keys(FUSES) as FuseName[]).filter((name) => actual[name] !== FUSES[name]);
}
