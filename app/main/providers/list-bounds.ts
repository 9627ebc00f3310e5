// Bounds on reading a server's model list, for every way Lathe asks for one (discovery.ts): its own
// GET for compatible servers and Ollama, and the OpenAI and Anthropic SDKs' `models.list` behind
// the Settings "Test" button. A configured base URL may be hostile or broken: its list must end in
// bounded memory and time, with an error that says which bound it hit, or be cut with a notice the
// user reads (never silently).
//
// The SDKs are given `listFetch`, a fetch whose answers' bodies are read through a counter, rather
// than being replaced by our own requests: they keep their authentication, headers, pagination and
// error shapes (errors.ts reads those), while every byte they read (a success, an error body, each
// page) passes the same bound. The SDKs' own `timeout` stops only the wait for the headers, not the
// reading of a body that trickles or never ends; `listFetch` puts one deadline over the whole
// listing, body included. Pages are counted where they are asked for (discovery.ts), since a fetch
// error would reach the user as the SDK's "Connection error".
//
// Contract:
// - listFetch({ deadlineMs }) answers each request like fetch, with a body that errors with
//   ListBoundError once all bodies read through it together pass MAX_LIST_BYTES (decompressed), or
//   once the deadline has passed; `expired()` tells whether it has.
// - keptModels keeps the first MAX_DISCOVERED_MODELS models whose ids can be chosen and says, in
//   `notice`, what it left out.
import type { CustomModelSettings } from "./types.ts";

/**
 * Bounds on what a server's model list may hold: its body as read (after any decompression; a
 * list of hundreds of models with descriptions is a few MB; for a list in pages, all pages
 * together), how many pages are asked for (the Anthropic API gives up to 1,000 models a page),
 * how many models are kept, and the length of a kept id (a model is chosen as "provider/id" of at
 * most 300 characters, the provider's id at most 100). A server that answered without end filled
 * the memory (4 GB in the 10 s of its deadline over loopback, far more from a compressed body),
 * and a list of a million models was saved in the settings and sent whole with every model list
 * (244 MB).
 */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;
export const MAX_LIST_PAGES = 20;
export const MAX_DISCOVERED_MODELS = 5_000;
export const MAX_MODEL_ID_CHARS = 199;
/** Time a whole listing may take, every page and body included. */
export const LIST_DEADLINE_MS = 15_000;

/** A bound of the listing was reached; its message says which, for the user. */
export class ListBoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ListBoundError";
  }
}

function tooLarge(url: string): ListBoundError {
  return new ListBoundError(`Its answer to ${new URL(url).pathname} passed ${MAX_LIST_BYTES / 1024 / 1024} MB, far more than a model list; it was not read further.`);
}

export function tooSlow(deadlineMs: number): ListBoundError {
  return new ListBoundError(`Its model list did not arrive whole within ${deadlineMs / 1000} s; it was not read further.`);
}

export interface ListFetch {
  fetch: typeof fetch;
  /** Whether the deadline has passed. */
  expired(): boolean;
}

export function listFetch(options: { deadlineMs?: number } = {}): ListFetch {
  const deadlineMs = options.deadlineMs ?? LIST_DEADLINE_MS;
  const deadline = AbortSignal.timeout(deadlineMs);
  let bytes = 0;
  const bounded = (body: ReadableStream<Uint8Array>, url: string): ReadableStream<Uint8Array> => {
    const reader = body.getReader();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          throw deadline.aborted ? tooSlow(deadlineMs) : error;
        }
        if (chunk.done) return controller.close();
        bytes += chunk.value.byteLength;
        if (bytes > MAX_LIST_BYTES) {
          await reader.cancel().catch(() => undefined);
          throw tooLarge(url);
        }
        controller.enqueue(chunk.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
  };
  const boundedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await fetch(input, { ...init, signal });
    if (!response.body) return response;
    return new Response(bounded(response.body, url), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: boundedFetch as typeof fetch, expired: () => deadline.aborted };
}

export interface KeptModels<T> {
  models: T[];
  /** What was left out, for the user; absent when nothing was. */
  notice?: string;
}

/**
 * The first MAX_DISCOVERED_MODELS of `models` whose id is short enough to be chosen. `more`: the
 * server had more than `models` holds (a list in pages not read to its end), with the reason.
 */
export function keptModels<T extends Pick<CustomModelSettings, "id">>(models: T[], more?: "models" | "pages"): KeptModels<T> {
  const usable = models.filter((m) => m.id.length > 0 && m.id.length <= MAX_MODEL_ID_CHARS);
  const kept = usable.slice(0, MAX_DISCOVERED_MODELS);
  const notices: string[] = [];
  const count = (n: number) => n.toLocaleString("en-US");
  if (usable.length > MAX_DISCOVERED_MODELS || more === "models") {
    const listed = more ? `more than ${count(usable.length)}` : count(usable.length);
    notices.push(`The server listed ${listed} models; only the first ${count(MAX_DISCOVERED_MODELS)} are shown.`);
  } else if (more === "pages") {
    notices.push(`The server's list went on past ${MAX_LIST_PAGES} pages; only the ${count(kept.length)} models of those are shown.`);
  }
  const unusable = models.length - usable.length;
  if (unusable > 0)
    notices.push(`${count(unusable)} model${unusable === 1 ? " was" : "s were"} left out: an empty id or one longer than ${MAX_MODEL_ID_CHARS} characters cannot be chosen.`);
  return notices.length > 0 ? { models: kept, notice: notices.join(" ") } : { models: kept };
}
