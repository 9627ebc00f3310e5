// The error a tool throws when it fails but still has something for the UI: the loop turns the
// message into the model's error result, and a loop that knows this class may keep `details`.

export class ToolExecutionError<TDetails = unknown> extends Error {
  readonly details: TDetails;

  constructor(message: string, details: TDetails) {
    super(message);
    this.name = "ToolExecutionError";
    this.details = details;
  }
}
