// The settings as the IPC contract carries them: the permission mode, rules, providers (never
// their keys), the sandbox's configuration, and the sandbox settings a request may change.
import { Type } from "@sinclair/typebox";
import { SandboxStatusSchema } from "../sandbox.ts";
import { Nullable } from "./store-schemas.ts";

const Id = Type.Integer({ minimum: 1 });
const NonEmpty = (maxLength: number) => Type.String({ minLength: 1, maxLength });

export const PermissionModeSchema = Type.Union([Type.Literal("ask"), Type.Literal("auto-edit"), Type.Literal("full-auto"), Type.Literal("sandboxed-auto")]);
export const ThemeSchema = Type.Union([Type.Literal("light"), Type.Literal("dark"), Type.Literal("system")]);

export const RuleSchema = Type.Object({
  id: Id,
  tool: Type.String(),
  pattern: Type.String(),
  action: Type.Union([Type.Literal("allow"), Type.Literal("deny")]),
  scope: Type.Union([Type.Literal("session"), Type.Literal("project"), Type.Literal("global")]),
  scopeId: Nullable(Type.Integer()),
  createdAt: Type.Number(),
  /** What the rule means, in a sentence (bash rules are matched word by word). */
  meaning: Type.Optional(Type.String()),
  /** For a rule saved by an older version whose meaning changed: what changed. */
  note: Type.Optional(Type.String()),
});

const ProviderEntrySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Union([Type.Literal("anthropic"), Type.Literal("openai"), Type.Literal("compatible")]),
  baseUrl: Type.Optional(Type.String()),
  /** Keys never reach the renderer: only whether one is set, and where from. */
  keySource: Type.Union([Type.Literal("settings"), Type.Literal("environment"), Type.Literal("none")]),
});

export const SettingsSchema = Type.Object({
  providers: Type.Array(ProviderEntrySchema),
  defaultModel: Nullable(Type.String()),
  theme: ThemeSchema,
  permissionMode: PermissionModeSchema,
  /** Compact automatically near the context window (and retry once on an overflow). */
  autoCompact: Type.Boolean(),
  /** A response with no data for this long is stopped as stalled. */
  stallTimeoutSeconds: Type.Integer({ minimum: 10, maximum: 3600 }),
  /** Checkpoints record files over this many MB as changed without storing them. */
  checkpointMaxFileMB: Type.Integer({ minimum: 1, maximum: 1024 }),
  /** Commands running at once share the CPU like one program (Linux and macOS: tools/command-priority.ts). */
  lowerCommandPriority: Type.Boolean(),
  /** False where the OS has no keyring: keys can then only come from the environment. */
  canStoreKeys: Type.Boolean(),
  /**
   * Provider keys the app was started with in its environment (names only): commands run outside
   * the sandbox can read them. `storedInKeyring` once moved there with settings.storeEnvironmentKeys.
   */
  environmentKeys: Type.Array(Type.Object({ variable: Type.String(), provider: Type.String(), storedInKeyring: Type.Boolean() })),
  sandbox: Type.Object({
    ...SandboxStatusSchema.properties,
    /** Projects whose sandboxed commands have network. */
    networkProjects: Type.Array(Id),
    /** Command patterns that need the real machine: they ask, and run outside the sandbox. */
    realMachineCommands: Type.Array(Type.String()),
    /** Secret paths hidden besides the built-in ones (shown in `defaultHiddenPaths`). */
    hiddenPaths: Type.Array(Type.String()),
    defaultHiddenPaths: Type.Array(Type.String()),
  }),
});

const ConfiguredPath = Type.String({ minLength: 1, maxLength: 4096 });

export const SandboxSettingsUpdateSchema = Type.Object(
  {
    realMachineCommands: Type.Optional(Type.Array(NonEmpty(500), { maxItems: 200 })),
    hiddenPaths: Type.Optional(Type.Array(ConfiguredPath, { maxItems: 200 })),
    /** Allows or forbids network for one project's sandboxed commands. */
    projectNetwork: Type.Optional(Type.Object({ projectId: Id, allowed: Type.Boolean() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
