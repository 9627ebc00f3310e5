// IpcRouter: the one entry point for requests from any renderer transport (Electron IPC, the
// headless host's WebSocket). Validates the name and the params against the contract before a
// handler sees them, and answers { ok: true, data } or { ok: false, error }. Params nested deeper
// or larger than the request bounds are refused before anything walks them recursively. Never
// throws and never rejects, whatever arrives. A handler's ServiceError (app/shared/errors.ts)
// becomes the IPC error of its kind; anything else thrown is "failed" and reported.
import type { TSchema } from "@sinclair/typebox";
import { requests, type IpcError, type IpcResult, type RequestName, type RequestParams, type RequestResult } from "../../shared/ipc/contract.ts";
import { MAX_REQUEST_BYTES, MAX_REQUEST_DEPTH, MAX_REQUEST_VALUES } from "../../shared/ipc/limits.ts";
import { exceedsBounds } from "../../shared/json-bounds.ts";
import { checkerFor, schemaErrorLines } from "../../shared/schema-check.ts";
import { errorText } from "../../shared/error-text.ts";
import { ServiceError, type ServiceFailure } from "../../shared/errors.ts";

export type RequestHandlers = {
  [N in RequestName]: (params: RequestParams<N>) => Promise<RequestResult<N>> | RequestResult<N>;
};

/** A service's own failure as the IPC error code the renderer sees. */
const codeOfFailure: Record<ServiceFailure, IpcError["code"]> = {
  "not-found": "not-found",
  invalid: "invalid-request",
  unavailable: "unavailable",
  failed: "failed",
};

export class IpcRouter {
  private readonly handlers: RequestHandlers;
  private readonly onHandlerError: ((name: string, error: unknown) => void) | undefined;

  constructor(handlers: RequestHandlers, onHandlerError?: (name: string, error: unknown) => void) {
    this.handlers = handlers;
    this.onHandlerError = onHandlerError;
  }

  async handle(name: unknown, params: unknown): Promise<IpcResult<unknown>> {
    if (typeof name !== "string" || !Object.hasOwn(requests, name)) {
      const shown = typeof name === "string" ? `"${name.slice(0, 100)}"` : typeof name;
      return failure("unknown-request", `Unknown request ${shown}.`);
    }
    const requestName = name as RequestName;
    const outOfBounds = exceedsBounds(params, { maxDepth: MAX_REQUEST_DEPTH, maxChars: MAX_REQUEST_BYTES, maxValues: MAX_REQUEST_VALUES });
    if (outOfBounds) return failure("invalid-request", `Invalid params for ${requestName}: they are ${outOfBounds}.`);
    try {
      const schema: TSchema = requests[requestName].params;
      const check = checkerFor(schema);
      if (!check.Check(params)) {
        const lines = schemaErrorLines(check, params).map((l) => l.replace("(the arguments object)", "(the params object)"));
        return failure("invalid-request", `Invalid params for ${requestName}:\n${lines.join("\n")}`);
      }
    } catch (error) {
      return failure("invalid-request", `Invalid params for ${requestName}: ${errorText(error)}`);
    }
    try {
      const handler = this.handlers[requestName] as (p: unknown) => unknown;
      return { ok: true, data: await handler(params) };
    } catch (error) {
      if (error instanceof ServiceError) return failure(codeOfFailure[error.failure], error.message);
      this.onHandlerError?.(requestName, error);
      return failure("failed", errorText(error));
    }
  }
}

function failure(code: IpcError["code"], message: string): IpcResult<never> {
  return { ok: false, error: { code, message } };
}
