// The registry of running bash calls, by tool-call id, through which the sessions service wires
// the UI's "type an answer" and "interrupt" to a command. Calls register when they start and
// unregister when they end. Never throws: an unknown or finished call is reported as false.

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

  /** Writes to the command's terminal, as if typed ("\r" is Enter). False if it is not running. */
  writeInput(toolCallId: string, data: string): boolean {
    const handle = this.handles.get(toolCallId);
    if (!handle) return false;
    try {
      handle.write(data);
      return true;
    } catch {
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
