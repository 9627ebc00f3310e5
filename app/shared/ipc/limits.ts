// The bounds of one request from a renderer, shared by the client (which refuses to send a larger
// one, with a clear error) and the main process (which refuses it whatever the client did).
// A request carries pasted images as base64, hence the size; nothing in the contract nests deeper
// than a handful of levels, hence the depth.
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
export const MAX_REQUEST_DEPTH = 64;
/** Values in one request (containers, strings, numbers): the largest list in the contract, the
 *  paths to restore from a checkpoint, holds 100,000. */
export const MAX_REQUEST_VALUES = 250_000;
/** The WebSocket subprotocol that carries the headless host's token in the upgrade itself: `lathe.token.<token>`. */
export const TOKEN_PROTOCOL_PREFIX = "lathe.token.";
