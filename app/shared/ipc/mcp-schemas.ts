// The IPC contract's MCP part: the settings screen's view of MCP servers (never a secret value:
// only names, and values stored in plain text), and the requests that list, import, change,
// restart and remove servers. Spread into `requests` and `events` by contract.ts.
import { Type, type Static, type TSchema } from "@sinclair/typebox";

const Id = Type.Integer({ minimum: 1 });
const ServerId = Type.String({ minLength: 1, maxLength: 200 });
const Scope = Type.Union([Type.Literal("user"), Type.Literal("project")]);

export const McpAnnotationsSchema = Type.Object({
  title: Type.Optional(Type.String()),
  readOnlyHint: Type.Optional(Type.Boolean()),
  destructiveHint: Type.Optional(Type.Boolean()),
  idempotentHint: Type.Optional(Type.Boolean()),
  openWorldHint: Type.Optional(Type.Boolean()),
});

const NamedValue = Type.Object({ name: Type.String(), value: Type.Optional(Type.String()), encrypted: Type.Boolean() });

export const McpServerViewSchema = Type.Object({
  /** "user/NAME" or "project/PROJECT_ID/NAME". */
  id: Type.String(),
  name: Type.String(),
  scope: Scope,
  projectId: Type.Union([Type.Integer(), Type.Null()]),
  transport: Type.Union([Type.Literal("stdio"), Type.Literal("http")]),
  command: Type.Optional(Type.String()),
  args: Type.Optional(Type.Array(Type.String())),
  cwd: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  env: Type.Array(NamedValue),
  headers: Type.Array(NamedValue),
  disabled: Type.Boolean(),
  loadAllTools: Type.Boolean(),
  timeoutMs: Type.Number(),
  status: Type.Object({
    state: Type.Union([Type.Literal("disabled"), Type.Literal("idle"), Type.Literal("connecting"), Type.Literal("connected"), Type.Literal("failed")]),
    error: Type.Optional(Type.String()),
    stderrTail: Type.String(),
    toolCount: Type.Integer(),
  }),
  tools: Type.Array(
    Type.Object({
      name: Type.String(),
      modelName: Type.String(),
      title: Type.Optional(Type.String()),
      summary: Type.String(),
      annotations: McpAnnotationsSchema,
      error: Type.Optional(Type.String()),
    }),
  ),
});

export const McpListSchema = Type.Object({
  servers: Type.Array(McpServerViewSchema),
  /** False where there is no OS keyring: secret-looking values must then be `${VAR}` references. */
  canStoreSecrets: Type.Boolean(),
});

/** What a permission dialog shows about a call to an MCP tool (annotations are the server's own hints). */
export const McpCallSummarySchema = Type.Object({
  server: Type.String(),
  tool: Type.String(),
  description: Type.String(),
  annotations: McpAnnotationsSchema,
});

function request<P extends TSchema, R extends TSchema>(params: P, result: R) {
  return { params: { ...params, additionalProperties: false } as P, result };
}

/** What an import shows of a server: what it runs or connects to, the names (not values) of its env and headers, the variables it uses. */
const McpServerDetailsSchema = Type.Object({
  name: Type.String(),
  transport: Type.Union([Type.Literal("stdio"), Type.Literal("http")]),
  command: Type.Optional(Type.String()),
  args: Type.Optional(Type.Array(Type.String())),
  url: Type.Optional(Type.String()),
  envNames: Type.Array(Type.String()),
  headerNames: Type.Array(Type.String()),
  variables: Type.Array(Type.String()),
  secretVariables: Type.Array(Type.String()),
  /** Where a server of the same name is configured already (then importing replaces it only when confirmed). */
  existing: Type.Optional(Type.String()),
});

export const mcpRequests = {
  /** User servers, and the servers of `projectId` when given. */
  "mcp.list": request(Type.Object({ projectId: Type.Optional(Id) }), McpListSchema),
  /** Adds servers from pasted `mcpServers` JSON or from a file (replacing servers of the same name in that scope). */
  "mcp.import": request(
    Type.Object({
      text: Type.Optional(Type.String({ minLength: 1, maxLength: 1_000_000 })),
      path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
      /** With `path` to ~/.claude.json: the servers Claude Code keeps for this project folder. */
      localProject: Type.Optional(Type.Boolean()),
      scope: Scope,
      projectId: Type.Optional(Id),
      /** Names of existing servers the user confirmed this import may replace (never replaced otherwise). */
      replace: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 200 })),
      /** Secret-looking `${VAR}`s the user confirmed a project file's servers may receive. */
      confirmedVariables: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 200 })),
    }),
    Type.Object({
      imported: Type.Array(Type.String()),
      skipped: Type.Array(Type.Object({ name: Type.String(), reason: Type.String() })),
      list: McpListSchema,
    }),
  ),
  /** Claude Desktop's and Claude Code's configuration files found on this machine, with their servers. */
  "mcp.findConfigs": request(
    Type.Object({ projectId: Type.Optional(Id) }),
    Type.Array(
      Type.Object({
        path: Type.String(),
        localProject: Type.Boolean(),
        label: Type.String(),
        /** A project's own file (its .mcp.json): imported servers are saved disabled, for that project by default. */
        fromProject: Type.Boolean(),
        servers: Type.Array(Type.String()),
        details: Type.Array(McpServerDetailsSchema),
        error: Type.Optional(Type.String()),
      }),
    ),
  ),
  "mcp.update": request(
    Type.Object({
      id: ServerId,
      disabled: Type.Optional(Type.Boolean()),
      loadAllTools: Type.Optional(Type.Boolean()),
      timeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
      projectId: Type.Optional(Id),
    }),
    McpListSchema,
  ),
  /** Stops and starts the server again; answers once it is connected or failed. */
  "mcp.restart": request(Type.Object({ id: ServerId, projectId: Type.Optional(Id) }), McpListSchema),
  "mcp.remove": request(Type.Object({ id: ServerId, projectId: Type.Optional(Id) }), McpListSchema),
} as const;

export const mcpEvents = {
  /** A server's status, configuration or tools changed: the settings screen lists again. */
  "mcp.changed": Type.Object({ id: Type.String() }),
} as const;

export type McpServerView = Static<typeof McpServerViewSchema>;
export type McpList = Static<typeof McpListSchema>;
export type McpCallSummary = Static<typeof McpCallSummarySchema>;
