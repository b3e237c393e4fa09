/**
 * When the run a command's message started begins. `pi.sendUserMessage`
 * starts a run without handing it back, and print and JSON mode end the
 * process as soon as a command's handler returns, so there a command that
 * hands the agent a task waits for the next `agent_start`, then for the
 * session to be idle again. The wait holds nothing open: a message Pi
 * refuses (no model, no credentials) starts no run, Pi reports why on
 * standard error, and the process ends as it would have.
 */
export interface AgentRuns {
  /** The `agent_start` handler. */
  onAgentStart(): void;
  /** Resolves at the next `agent_start`; ask before sending the message. */
  nextStart(): Promise<void>;
}

export function createAgentRuns(): AgentRuns {
  let waiting: Array<() => void> = [];
  return {
    onAgentStart() {
      const ready = waiting;
      waiting = [];
      for (const resolve of ready) resolve();
    },
    nextStart() {
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}
