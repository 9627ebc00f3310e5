// Stored permission rules ("always allow bash `npm test` in this project"). The store only keeps
// them; matching a call against `pattern` is the permission engine's job. Session-scoped rules go
// away with their session.
import type { Database } from "better-sqlite3";
import { StoreError, toStoreError } from "./errors.ts";
import { statement } from "./sql.ts";

export type RuleScope = "session" | "project" | "global";

export interface NewPermissionRule {
  tool: string;
  /** Interpreted by the permission engine (a glob over the command or path); "*" for any. */
  pattern?: string;
  action: "allow" | "deny";
  scope: RuleScope;
  /** The session or project id; null for global rules. */
  scopeId: number | null;
}

export interface PermissionRule extends Required<NewPermissionRule> {
  id: number;
  createdAt: number;
}

export interface RuleQuery {
  tool?: string;
  sessionId?: number;
  projectId?: number;
}

const COLUMNS = "id, tool, pattern, action, scope, scope_id AS scopeId, created_at AS createdAt";

export class PermissionRules {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  add(rule: NewPermissionRule): PermissionRule {
    if ((rule.scope === "global") !== (rule.scopeId === null))
      throw new StoreError("invalid", `A ${rule.scope} rule ${rule.scope === "global" ? "takes no" : "needs a"} scope id.`);
    try {
      return statement(this.#db, `INSERT INTO permission_rules (tool, pattern, action, scope, scope_id, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`).get(
        rule.tool,
        rule.pattern ?? "*",
        rule.action,
        rule.scope,
        rule.scopeId,
        Date.now(),
      ) as PermissionRule;
    } catch (err) {
      throw toStoreError(err, `saving the permission rule for ${rule.tool}`);
    }
  }

  /**
   * Replaces a rule by its edited version (a new row), in one transaction: a failure leaves the
   * old rule in place. Undefined when there is no rule `id`.
   */
  replace(id: number, changes: { pattern?: string; action?: "allow" | "deny" }): PermissionRule | undefined {
    try {
      return this.#db.transaction(() => {
        const rule = statement(this.#db, `SELECT ${COLUMNS} FROM permission_rules WHERE id = ?`).get(id) as PermissionRule | undefined;
        if (!rule) return undefined;
        statement(this.#db, "DELETE FROM permission_rules WHERE id = ?").run(id);
        return this.add({ tool: rule.tool, pattern: changes.pattern ?? rule.pattern, action: changes.action ?? rule.action, scope: rule.scope, scopeId: rule.scopeId });
      })();
    } catch (err) {
      throw toStoreError(err, "saving the edited permission rule");
    }
  }

  remove(id: number): boolean {
    try {
      return statement(this.#db, "DELETE FROM permission_rules WHERE id = ?").run(id).changes > 0;
    } catch (err) {
      throw toStoreError(err, "deleting the permission rule");
    }
  }

  /** Rules that apply to a call: global ones plus those of the given session and project, oldest first. */
  applicable(query: RuleQuery = {}): PermissionRule[] {
    return statement(
      this.#db,
      `SELECT ${COLUMNS} FROM permission_rules
        WHERE (@tool IS NULL OR tool = @tool)
          AND (scope = 'global' OR (scope = 'session' AND scope_id = @sessionId) OR (scope = 'project' AND scope_id = @projectId))
        ORDER BY id`,
    ).all({ tool: query.tool ?? null, sessionId: query.sessionId ?? null, projectId: query.projectId ?? null }) as PermissionRule[];
  }

  all(): PermissionRule[] {
    return statement(this.#db, `SELECT ${COLUMNS} FROM permission_rules ORDER BY id`).all() as PermissionRule[];
  }
}
