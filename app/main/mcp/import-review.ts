// What an import may add, decided before anything is saved or started (pure; never throws). A
// configuration can come from a cloned repository's `.mcp.json`, so:
// - a server never silently replaces one of the same name (a user server, or one of the project
//   that would shadow or be shadowed by it): the user names the servers to replace;
// - a server from a project's file is saved disabled (it starts when the user enables it), and
//   one that uses a secret-looking `${VAR}` of Lathe's environment is refused unless the user
//   confirmed that variable (expandSpec checks the same at every start).
import path from "node:path";
import { serverDetails, type McpServerSpec, type SkippedServer } from "./config.ts";

export interface ImportReviewInput {
  servers: McpServerSpec[];
  /** Names of the servers already configured for the target (user servers and the project's). */
  existing: ReadonlyMap<string, string>;
  /** Names the user confirmed to replace. */
  replace: readonly string[];
  /** Secret-looking variables the user confirmed the imported servers may receive. */
  confirmedVariables: readonly string[];
  fromProjectFile: boolean;
}

export function reviewImport(input: ImportReviewInput): { accepted: McpServerSpec[]; skipped: SkippedServer[] } {
  const accepted: McpServerSpec[] = [];
  const skipped: SkippedServer[] = [];
  const replace = new Set(input.replace);
  const confirmed = new Set(input.confirmedVariables);
  for (const spec of input.servers) {
    const where = input.existing.get(spec.name);
    if (where !== undefined && !replace.has(spec.name)) {
      skipped.push({ name: spec.name, reason: `A server named ${spec.name} already exists (${where}): Lathe replaces it only when you confirm the replacement.` });
      continue;
    }
    if (!input.fromProjectFile) {
      accepted.push(spec);
      continue;
    }
    const secrets = serverDetails(spec).secretVariables;
    const unconfirmed = secrets.filter((v) => !confirmed.has(v));
    if (unconfirmed.length > 0) {
      const list = unconfirmed.map((v) => `\${${v}}`).join(", ");
      skipped.push({
        name: spec.name,
        reason: `It comes from a project's file and uses ${list} of Lathe's environment, which look${unconfirmed.length === 1 ? "s" : ""} like a secret: confirm ${unconfirmed.length === 1 ? "it" : "them"} to import the server.`,
      });
      continue;
    }
    accepted.push({ ...spec, disabled: true, fromProjectFile: true, confirmedVariables: secrets });
  }
  return { accepted, skipped };
}

/** A project's own configuration: a `.mcp.json` anywhere, or any file inside the project folder. */
export function isProjectFile(file: string, projectFolder: string | undefined): boolean {
  if (path.basename(file) === ".mcp.json") return true;
  if (projectFolder === undefined) return false;
  const relative = path.relative(projectFolder, path.resolve(file));
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
