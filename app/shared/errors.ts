// ServiceError: what a service (sessions, permissions, settings, MCP) throws when a request cannot
// be done, in the service's own terms. Services know nothing of IPC: the router (app/main/ipc/
// router.ts) maps `failure` to the IPC error code, and anything else thrown becomes "failed".

export type ServiceFailure =
  /** The thing named (a session, a project, a rule) does not exist. */
  | "not-found"
  /** The request is well-formed but cannot be done as asked (an empty message, a bad URL). */
  | "invalid"
  /** Not possible in this process or right now (no keyring, read-only data, a failed save). */
  | "unavailable"
  /** It was tried and failed. */
  | "failed";

export class ServiceError extends Error {
  readonly failure: ServiceFailure;
  constructor(failure: ServiceFailure, message: string) {
    super(message);
    this.name = "ServiceError";
    this.failure = failure;
  }
}
