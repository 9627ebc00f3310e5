// Where MCP server configurations live: the settings table (key "mcpServers"), per user (every
// project) and per project. Values of `env` and `headers` are stored like provider keys: sealed
// by the OS keyring when there is one. Without a keyring a value that looks like a secret (by its
// name, a password in a URL, a token-shaped string) is refused with the reason. Values that take
// their secret from `${VAR}` references ("Bearer ${TOKEN}") are kept as they are. Decrypted values never leave the main
// process: views carry names, and only values stored in plain text. Never throws on stored data it
// cannot read: the server is reported with the problem instead.
import type { SettingsStore } from "../store/settings.ts";
import { clampTimeout, SECRET_NAME, type McpServerSpec } from "./config.ts";

export type McpScope = "user" | "project";

interface StoredValue {
  plain?: string;
  sealed?: string;
}

type StoredServer = Omit<McpServerSpec, "env" | "headers"> & { env?: Record<string, StoredValue>; headers?: Record<string, StoredValue> };

interface StoredMcp {
  user?: StoredServer[];
  projects?: Record<string, StoredServer[]>;
}

export interface McpServerRecord {
  /** "user/NAME" or "project/PROJECT_ID/NAME". */
  id: string;
  scope: McpScope;
  projectId: number | null;
  /** With decrypted values: for starting the server only. */
  spec: McpServerSpec;
  /** Names of env variables and headers whose values are stored encrypted. */
  encrypted: { env: string[]; headers: string[] };
  /** Set when a stored value cannot be decrypted: the server cannot start. */
  secretError?: string;
}

const KEY = "mcpServers";
const SECRET_HEADER = /^(?:authorization|proxy-authorization|cookie|x-api-key|api-key)$/i;

export function serverId(scope: McpScope, projectId: number | null, name: string): string {
  return scope === "user" ? `user/${name}` : `project/${projectId}/${name}`;
}

const REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/g;

/** A value that takes its secret from `${VAR}` references: what is written around them is not secret. */
export function onlyReferencesSecret(value: string): boolean {
  const rest = value.replace(REFERENCE, "");
  return rest !== value && !looksLikeSecretText(rest);
}

function looksLikeSecretText(text: string): boolean {
  if (/:\/\/[^/\s:@]+:[^/\s@]+@/.test(text) || /^bearer\s+\S/i.test(text.trim())) return true;
  // A long unbroken run of letters and digits mixed: a token.
  return /[A-Za-z0-9_\-+/=.]{24,}/.test(text) && /[A-Za-z]/.test(text) && /[0-9]/.test(text);
}

/** Whether a value should not be kept in plain text. */
export function looksSecret(name: string, value: string, isHeader: boolean): boolean {
  if (value.includes("${")) return !onlyReferencesSecret(value);
  if (SECRET_NAME.test(name) || (isHeader && SECRET_HEADER.test(name))) return true;
  return looksLikeSecretText(value);
}

/** The OS keyring that seals configured secrets (a port: the settings service's SecretStore fits). */
export interface SecretStore {
  /** False when the OS offers no keyring (then secrets are refused, not stored in plain text). */
  readonly available: boolean;
  readonly unavailableReason?: string;
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

export class McpConfigStore {
  private readonly store: SettingsStore;
  private readonly secrets: SecretStore;

  constructor(store: SettingsStore, secrets: SecretStore) {
    this.store = store;
    this.secrets = secrets;
  }

  get canStoreSecrets(): boolean {
    return this.secrets.available;
  }

  all(): McpServerRecord[] {
    const stored = this.read();
    const records = (stored.user ?? []).map((s) => this.toRecord("user", null, s));
    for (const [projectId, list] of Object.entries(stored.projects ?? {})) {
      for (const s of list) records.push(this.toRecord("project", Number(projectId), s));
    }
    return records;
  }

  get(id: string): McpServerRecord | undefined {
    return this.all().find((r) => r.id === id);
  }

  /**
   * Adds or replaces servers (by name) in one scope. A server whose values cannot be stored safely
   * is refused with the reason; the others are saved.
   */
  put(scope: McpScope, projectId: number | null, specs: McpServerSpec[]): { saved: string[]; refused: { name: string; reason: string }[] } {
    const stored = this.read();
    const list = this.listFor(stored, scope, projectId);
    const saved: string[] = [];
    const refused: { name: string; reason: string }[] = [];
    for (const spec of specs) {
      const sealed = this.seal(spec);
      if (typeof sealed === "string") {
        refused.push({ name: spec.name, reason: sealed });
        continue;
      }
      const at = list.findIndex((s) => s.name === spec.name);
      if (at >= 0) list[at] = sealed;
      else list.push(sealed);
      saved.push(serverId(scope, projectId, spec.name));
    }
    this.write(stored);
    return { saved, refused };
  }

  /** Changes Lathe's own fields of a server; false when there is no such server. */
  update(id: string, changes: { disabled?: boolean; loadAllTools?: boolean; timeoutMs?: number }): boolean {
    const stored = this.read();
    const server = this.find(stored, id);
    if (!server) return false;
    if (changes.disabled !== undefined) server.disabled = changes.disabled;
    if (changes.loadAllTools !== undefined) server.loadAllTools = changes.loadAllTools;
    if (changes.timeoutMs !== undefined) server.timeoutMs = clampTimeout(changes.timeoutMs);
    this.write(stored);
    return true;
  }

  remove(id: string): boolean {
    const stored = this.read();
    for (const [scope, projectId, list] of this.lists(stored)) {
      const at = list.findIndex((s) => serverId(scope, projectId, s.name) === id);
      if (at >= 0) {
        list.splice(at, 1);
        this.write(stored);
        return true;
      }
    }
    return false;
  }

  /** Every decrypted env and header value, for redaction from tool output. */
  secretValues(): string[] {
    const values: string[] = [];
    for (const record of this.all()) {
      for (const name of record.encrypted.env) values.push(record.spec.env?.[name] ?? "");
      for (const name of record.encrypted.headers) values.push(record.spec.headers?.[name] ?? "");
    }
    return values.filter((v) => v.length >= 8);
  }

  private seal(spec: McpServerSpec): StoredServer | string {
    const refusedNames: string[] = [];
    const sealMap = (map: Record<string, string> | undefined, isHeader: boolean) => {
      if (!map) return undefined;
      const out: Record<string, StoredValue> = {};
      for (const [name, value] of Object.entries(map)) {
        if (onlyReferencesSecret(value)) out[name] = { plain: value };
        else if (this.secrets.available) out[name] = { sealed: this.secrets.encrypt(value) };
        else if (looksSecret(name, value, isHeader)) refusedNames.push(name);
        else out[name] = { plain: value };
      }
      return out;
    };
    const { env, headers, ...rest } = spec;
    const storedEnv = sealMap(env, false);
    const storedHeaders = sealMap(headers, true);
    if (refusedNames.length > 0) {
      const example = refusedNames[0]!;
      return (
        `${this.secrets.unavailableReason ?? "No OS keyring is available."} Lathe will not store the value of ${refusedNames.join(", ")} in plain text: ` +
        `write it as \${${/^[A-Za-z_][A-Za-z0-9_]*$/.test(example) ? example : "VARIABLE"}} and set that variable in Lathe's environment.`
      );
    }
    return { ...rest, ...(storedEnv ? { env: storedEnv } : {}), ...(storedHeaders ? { headers: storedHeaders } : {}) };
  }

  private toRecord(scope: McpScope, projectId: number | null, stored: StoredServer): McpServerRecord {
    const encrypted = { env: [] as string[], headers: [] as string[] };
    let secretError: string | undefined;
    const open = (map: Record<string, StoredValue> | undefined, kind: "env" | "headers") => {
      if (!map) return undefined;
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(map)) {
        if (value.sealed === undefined) {
          out[name] = value.plain ?? "";
          continue;
        }
        encrypted[kind].push(name);
        try {
          if (!this.secrets.available) throw new Error("no keyring");
          out[name] = this.secrets.decrypt(value.sealed);
        } catch {
          secretError ??= `The stored value of ${name} cannot be decrypted on this machine (no keyring, or it changed): add the server again.`;
          out[name] = "";
        }
      }
      return out;
    };
    const { env: storedEnv, headers: storedHeaders, ...rest } = stored;
    const env = open(storedEnv, "env");
    const headers = open(storedHeaders, "headers");
    const spec: McpServerSpec = { ...rest, ...(env ? { env } : {}), ...(headers ? { headers } : {}), timeoutMs: clampTimeout(stored.timeoutMs) };
    return { id: serverId(scope, projectId, stored.name), scope, projectId, spec, encrypted, ...(secretError ? { secretError } : {}) };
  }

  private read(): StoredMcp {
    try {
      const value = this.store.get<StoredMcp>(KEY, {});
      return value && typeof value === "object" ? value : {};
    } catch {
      return {};
    }
  }

  private write(stored: StoredMcp): void {
    this.store.set(KEY, stored);
  }

  private listFor(stored: StoredMcp, scope: McpScope, projectId: number | null): StoredServer[] {
    if (scope === "user") return (stored.user ??= []);
    const projects = (stored.projects ??= {});
    return (projects[String(projectId)] ??= []);
  }

  private lists(stored: StoredMcp): [McpScope, number | null, StoredServer[]][] {
    const out: [McpScope, number | null, StoredServer[]][] = [["user", null, stored.user ?? []]];
    for (const [projectId, list] of Object.entries(stored.projects ?? {})) out.push(["project", Number(projectId), list]);
    return out;
  }

  private find(stored: StoredMcp, id: string): StoredServer | undefined {
    for (const [scope, projectId, list] of this.lists(stored)) {
      const server = list.find((s) => serverId(scope, projectId, s.name) === id);
      if (server) return server;
    }
    return undefined;
  }
}
