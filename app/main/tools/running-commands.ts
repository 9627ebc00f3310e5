// The registry of running bash calls, by tool-call id, through which the sessions service wires
// the UI's "type an answer" and "interrupt" to a command. Calls register when they start and
// unregister when they end. An unknown or finished call is reported as false; the one throw is
// input refused because the command has not read what it was given (CommandInputFull, a
// ServiceError the caller shows).
import { ServiceError } from "../../shared/errors.ts";

export interface CommandHandle {
  write(data: string): void;
  interrupt(): void;
}

export class RunningCommands {
  private readonly handles = new Map<string, CommandHandle>();

  register(toolCallId: string, handle: CommandHandle): void {
    this.handles.set(toolCallId, handle);
  }

  unregister(toolCallId: string): void {
    this.handles.delete(toolCallId);
  }

  isRunning(toolCallId: string): boolean {
    return this.handles.has(toolCallId);
  }

  /**
   * Writes to the command's terminal, as if typed ("\r" is Enter). False if it is not running;
   * throws the terminal's ServiceError (too much input waiting: pty-input-bound.ts).
   */
  writeInput(toolCallId: string, data: string): boolean {
    const handle = this.handles.get(toolCallId);
    if (!handle) return false;
    try {
      handle.write(data);
      return true;
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      return false;
    }
  }

  /** Sends an interrupt (Ctrl-C) to the command's process group. False if it is not running. */
  interrupt(toolCallId: string): boolean {
    const handle = this.handles.get(toolCallId);
    if (!handle) return false;
    handle.interrupt();
    return true;
  }
}
