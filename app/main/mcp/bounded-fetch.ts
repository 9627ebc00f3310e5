// A fetch for the Streamable HTTP transport that bounds every answer: a response body (a JSON
// answer, or an SSE stream over its whole life) over `maxBytes` fails with a clear error instead
// of filling the main process's memory, and `onExceeded` is called (the connection then closes, so
// the call waiting for that answer fails at once). Never changes anything else of the request or
// the response.

/** The largest single MCP message Lathe accepts from a server (stdio line or HTTP body). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export function boundedFetch(maxBytes: number, onExceeded: () => void = () => {}, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body || response.status < 200) return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= maxBytes) return controller.enqueue(chunk);
          controller.error(new Error(`The server sent more than ${Math.round(maxBytes / 1024 / 1024)} MB in one answer; Lathe stopped reading it.`));
          onExceeded();
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
