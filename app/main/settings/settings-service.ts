// SettingsService: the user's settings (providers, default model, theme, permission mode, stall limit,
// parallel commands' CPU priority), kept
// in the store. API keys are stored only encrypted by the OS keyring (a SecretStore: Electron's
// safeStorage in the app); where there is none, storing a key is refused with a message saying so,
// and keys come from the environment. Keys never leave the main process: the renderer sees only
// where a key comes from. Also the sandbox's settings (network per project, real-machine commands,
// extra hidden paths) and the default permission mode: "sandboxed auto" where a sandbox works.
import type { Settings } from "../../shared/ipc/contract.ts";
import type { SandboxStatus } from "../../shared/sandbox.ts";
import type { ProviderSettings } from "../providers/index.ts";
import type { CustomModelSettings } from "../providers/types.ts";
import { ServiceError } from "../../shared/errors.ts";
import type { SettingsStore } from "../store/settings.ts";
import type { SandboxSettings } from "../sandbox/sandbox-service.ts";
import { DEFAULT_REAL_MACHINE_COMMANDS } from "../sandbox/command-needs.ts";
import { expandConfiguredPath } from "../sandbox/rules.ts";

export interface SecretStore {
  /** False when the OS offers no keyring (then nothing may be stored). */
  readonly available: boolean;
  /** Why it is unavailable, for the user. */
  readonly unavailableReason?: string;
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

export const noSecretStore: SecretStore = {
  available: false,
  unavailableReason: "This host has no OS keyring to encrypt keys with.",
  encrypt: () => {
    throw new Error("No keyring");
  },
  decrypt: () => {
    throw new Error("No keyring");
  },
};

interface StoredEndpoint {
  baseUrl?: string;
  sealedKey?: string;
}

interface StoredCustom extends StoredEndpoint {
  id: string;
  name: string;
  baseUrl: string;
  models?: CustomModelSettings[];
}

interface StoredProviders {
  anthropic?: StoredEndpoint;
  openai?: StoredEndpoint;
  custom?: StoredCustom[];
}

export type PermissionMode = Settings["permissionMode"];

export const DEFAULT_STALL_TIMEOUT_SECONDS = 120;

const KEY_VARS: Record<string, string> = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY" };

/** What the settings screen shows of the sandbox (SandboxService provides it). */
export interface SandboxInfo {
  status(): SandboxStatus;
  defaultHiddenPaths(): string[];
  readonly home: string;
}

export type SandboxSettingsUpdate = NonNullable<Parameters<SettingsService["update"]>[0]["sandbox"]>;

export interface ProviderUpdate {
  id: string;
  name?: string;
  kind?: "anthropic" | "openai" | "compatible";
  baseUrl?: string | null;
  apiKey?: string | null;
  models?: CustomModelSettings[];
}

export class SettingsService {
  private readonly store: SettingsStore;
  private readonly secrets: SecretStore;
  private readonly env: Record<string, string | undefined>;
  private readonly listeners = new Set<() => void>();
  private readonly sandbox: (() => SandboxInfo) | undefined;

  constructor(store: SettingsStore, secrets: SecretStore, env: Record<string, string | undefined> = process.env, sandbox?: () => SandboxInfo) {
    this.store = store;
    this.secrets = secrets;
    this.env = env;
    this.sandbox = sandbox;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The user's choice; until there is one, "sandboxed auto" where a sandbox works, else "ask". */
  get permissionMode(): PermissionMode {
    return this.store.get<PermissionMode | null>("permissionMode", null) ?? (this.sandbox?.().status().available ? "sandboxed-auto" : "ask");
  }

  sandboxSettings(): SandboxSettings {
    const stored = this.store.get<Partial<SandboxSettings>>("sandbox", {});
    return {
      networkProjects: Array.isArray(stored.networkProjects) ? stored.networkProjects : [],
      realMachineCommands: Array.isArray(stored.realMachineCommands) ? stored.realMachineCommands : null,
      hiddenPaths: Array.isArray(stored.hiddenPaths) ? stored.hiddenPaths : [],
    };
  }

  get autoCompact(): boolean {
    return this.store.get<boolean>("autoCompact", true);
  }

  /** Seconds without data after which a model's response is stopped as stalled (default 120). */
  get stallTimeoutSeconds(): number {
    return this.store.get<number>("stallTimeoutSeconds", DEFAULT_STALL_TIMEOUT_SECONDS);
  }

  /** Files over this many MB are recorded as changed by checkpoints but not stored (default 10). */
  get checkpointMaxFileMB(): number {
    return this.store.get<number>("checkpointMaxFileMB", 10);
  }

  /** Whether commands running at once share the CPU like one program (default on: tools/command-priority.ts). */
  get lowerCommandPriority(): boolean {
    return this.store.get<boolean>("lowerCommandPriority", true);
  }

  get defaultModel(): string | null {
    return this.store.get<string | null>("defaultModel", null);
  }

  /** Keys and endpoints as the provider layer wants them (keys decrypted, env left to it). */
  providerSettings(): ProviderSettings {
    const stored = this.storedProviders();
    const endpoint = (e: StoredEndpoint | undefined) => (e ? { baseUrl: e.baseUrl, apiKey: this.unseal(e.sealedKey) } : undefined);
    return {
      anthropic: endpoint(stored.anthropic),
      openai: endpoint(stored.openai),
      custom: (stored.custom ?? []).map((c) => ({ id: c.id, name: c.name, baseUrl: c.baseUrl, apiKey: this.unseal(c.sealedKey), models: c.models })),
    };
  }

  /**
   * The provider settings as they would be with `candidate` applied to provider `id`, for a test
   * before saving: nothing is stored, and the same checks as setProvider apply.
   */
  providerSettingsWith(id: string, candidate: { kind?: string; baseUrl?: string | null; apiKey?: string }): ProviderSettings {
    const current = this.providerSettings();
    const baseUrl = candidate.baseUrl ? checkedUrl(candidate.baseUrl) : candidate.baseUrl;
    const apiKey = candidate.apiKey?.trim() || undefined;
    if (id === "anthropic" || id === "openai") {
      const endpoint = { ...current[id] };
      if (baseUrl) endpoint.baseUrl = baseUrl;
      else if (baseUrl !== undefined) delete endpoint.baseUrl;
      if (apiKey) endpoint.apiKey = apiKey;
      return { ...current, [id]: endpoint };
    }
    if (candidate.kind && candidate.kind !== "compatible") throw new ServiceError("invalid", `"${id}" is not a built-in provider; custom servers are of kind "compatible".`);
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(id)) throw new ServiceError("invalid", "A server id is 1 to 64 lowercase letters, digits, dots, dashes or underscores.");
    const existing = current.custom?.find((c) => c.id === id);
    if (!existing && !baseUrl) throw new ServiceError("invalid", "A new server needs a base URL (for Ollama: http://127.0.0.1:11434/v1).");
    const next = { ...(existing ?? { id, name: id, baseUrl: baseUrl! }), ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}) };
    return { ...current, custom: [...(current.custom ?? []).filter((c) => c.id !== id), next] };
  }

  view(): Settings {
    const stored = this.storedProviders();
    const builtin = (id: "anthropic" | "openai", name: string) => ({
      id,
      name,
      kind: id,
      ...(stored[id]?.baseUrl ? { baseUrl: stored[id]!.baseUrl } : {}),
      keySource: stored[id]?.sealedKey ? ("settings" as const) : this.env[KEY_VARS[id]!] ? ("environment" as const) : ("none" as const),
    });
    return {
      providers: [
        builtin("anthropic", "Anthropic"),
        builtin("openai", "OpenAI"),
        ...(stored.custom ?? []).map((c) => ({
          id: c.id,
          name: c.name,
          kind: "compatible" as const,
          baseUrl: c.baseUrl,
          keySource: c.sealedKey ? ("settings" as const) : ("none" as const),
        })),
      ],
      defaultModel: this.defaultModel,
      theme: this.store.get<Settings["theme"]>("theme", "system"),
      permissionMode: this.permissionMode,
      autoCompact: this.autoCompact,
      stallTimeoutSeconds: this.stallTimeoutSeconds,
      checkpointMaxFileMB: this.checkpointMaxFileMB,
      lowerCommandPriority: this.lowerCommandPriority,
      canStoreKeys: this.secrets.available,
      environmentKeys: Object.entries(KEY_VARS)
        .filter(([, variable]) => this.env[variable])
        .map(([provider, variable]) => ({ variable, provider, storedInKeyring: Boolean(stored[provider as "anthropic" | "openai"]?.sealedKey) })),
      sandbox: this.sandboxView(),
    };
  }

  private sandboxView(): Settings["sandbox"] {
    const info = this.sandbox?.();
    const status = info?.status() ?? { kind: "none" as const, available: false, message: "No sandbox is configured for this host." };
    const own = this.sandboxSettings();
    return {
      kind: status.kind,
      available: status.available,
      message: status.message,
      networkProjects: own.networkProjects,
      realMachineCommands: own.realMachineCommands ?? DEFAULT_REAL_MACHINE_COMMANDS,
      hiddenPaths: own.hiddenPaths,
      defaultHiddenPaths: info?.defaultHiddenPaths() ?? [],
    };
  }

  /** Moves the provider keys of the environment into the keyring; refused where there is none. */
  storeEnvironmentKeys(): Settings {
    const found = Object.entries(KEY_VARS).filter(([, variable]) => this.env[variable]);
    if (found.length === 0) throw new ServiceError("not-found", "Lathe was not started with provider keys in its environment: there is nothing to move.");
    if (!this.secrets.available) {
      throw new ServiceError(
        "unavailable",
        `${this.secrets.unavailableReason ?? "No OS keyring is available."} The keys stay in the environment; commands run outside the sandbox can read them.`,
      );
    }
    for (const [provider, variable] of found) this.setProvider({ id: provider, apiKey: this.env[variable]! });
    return this.view();
  }

  update(changes: {
    defaultModel?: string | null;
    theme?: Settings["theme"];
    permissionMode?: PermissionMode;
    autoCompact?: boolean;
    stallTimeoutSeconds?: number;
    checkpointMaxFileMB?: number;
    lowerCommandPriority?: boolean;
    sandbox?: { realMachineCommands?: string[]; hiddenPaths?: string[]; projectNetwork?: { projectId: number; allowed: boolean } };
  }): Settings {
    if (changes.sandbox) this.updateSandbox(changes.sandbox);
    if (changes.defaultModel !== undefined) this.store.set("defaultModel", changes.defaultModel);
    if (changes.theme !== undefined) this.store.set("theme", changes.theme);
    if (changes.permissionMode !== undefined) this.store.set("permissionMode", changes.permissionMode);
    if (changes.autoCompact !== undefined) this.store.set("autoCompact", changes.autoCompact);
    if (changes.stallTimeoutSeconds !== undefined) this.store.set("stallTimeoutSeconds", changes.stallTimeoutSeconds);
    if (changes.checkpointMaxFileMB !== undefined) this.store.set("checkpointMaxFileMB", changes.checkpointMaxFileMB);
    if (changes.lowerCommandPriority !== undefined) this.store.set("lowerCommandPriority", changes.lowerCommandPriority);
    this.changed();
    return this.view();
  }

  private updateSandbox(changes: SandboxSettingsUpdate): void {
    const next = this.sandboxSettings();
    if (changes.realMachineCommands) next.realMachineCommands = [...new Set(changes.realMachineCommands.map((c) => c.trim().replace(/\s+/g, " ")).filter(Boolean))];
    if (changes.hiddenPaths) {
      const home = this.sandbox?.().home ?? "/";
      const paths = [...new Set(changes.hiddenPaths.map((p) => p.trim()).filter(Boolean))];
      const bad = paths.find((p) => expandConfiguredPath(p, home) === undefined);
      if (bad !== undefined) throw new ServiceError("invalid", `"${bad}" is not a path Lathe can hide: use an absolute path or one starting with ~/.`);
      next.hiddenPaths = paths;
    }
    if (changes.projectNetwork) {
      const { projectId, allowed } = changes.projectNetwork;
      next.networkProjects = allowed ? [...new Set([...next.networkProjects, projectId])] : next.networkProjects.filter((id) => id !== projectId);
    }
    this.store.set("sandbox", next);
  }

  setProvider(update: ProviderUpdate): Settings {
    const stored = this.storedProviders();
    const isBuiltin = update.id === "anthropic" || update.id === "openai";
    if (!isBuiltin && update.kind && update.kind !== "compatible") {
      throw new ServiceError("invalid", `"${update.id}" is not a built-in provider; custom servers are of kind "compatible".`);
    }
    let entry: StoredEndpoint;
    if (isBuiltin) {
      entry = stored[update.id as "anthropic" | "openai"] ??= {};
    } else {
      if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(update.id)) {
        throw new ServiceError("invalid", "A server id is 1 to 64 lowercase letters, digits, dots, dashes or underscores.");
      }
      const list = (stored.custom ??= []);
      let custom = list.find((c) => c.id === update.id);
      if (!custom) {
        if (!update.baseUrl) throw new ServiceError("invalid", `A new server needs a base URL (for Ollama: http://127.0.0.1:11434/v1).`);
        custom = { id: update.id, name: update.name ?? update.id, baseUrl: update.baseUrl };
        list.push(custom);
      }
      if (update.name) custom.name = update.name;
      if (update.models) custom.models = update.models;
      entry = custom;
    }
    if (update.baseUrl !== undefined) {
      if (update.baseUrl === null || update.baseUrl === "") {
        if (!isBuiltin) throw new ServiceError("invalid", "A custom server cannot be without a base URL.");
        delete entry.baseUrl;
      } else {
        entry.baseUrl = checkedUrl(update.baseUrl);
      }
    }
    if (update.apiKey !== undefined) {
      if (update.apiKey === null || update.apiKey === "") delete entry.sealedKey;
      else entry.sealedKey = this.seal(update.apiKey.trim());
    }
    this.store.set("providers", stored);
    this.changed();
    return this.view();
  }

  removeProvider(id: string): Settings {
    const stored = this.storedProviders();
    if (id === "anthropic" || id === "openai") delete stored[id];
    else if (!(stored.custom ?? []).some((c) => c.id === id)) throw new ServiceError("not-found", `No provider "${id}".`);
    else stored.custom = stored.custom!.filter((c) => c.id !== id);
    this.store.set("providers", stored);
    this.changed();
    return this.view();
  }

  private storedProviders(): StoredProviders {
    return this.store.get<StoredProviders>("providers", {});
  }

  private seal(key: string): string {
    if (!this.secrets.available) {
      throw new ServiceError(
        "unavailable",
        `${this.secrets.unavailableReason ?? "No OS keyring is available."} Lathe will not store an API key in plain text: set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment instead.`,
      );
    }
    return this.secrets.encrypt(key);
  }

  private unseal(sealed: string | undefined): string | undefined {
    if (!sealed || !this.secrets.available) return undefined;
    try {
      return this.secrets.decrypt(sealed);
    } catch {
      return undefined;
    }
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}

function checkedUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ServiceError("invalid", `"${value}" is not a URL (expected something like http://127.0.0.1:11434/v1).`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ServiceError("invalid", `A provider URL must use http or https, not ${url.protocol}`);
  }
  return url.toString().replace(/\/$/, "");
}
