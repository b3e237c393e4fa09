/**
 * Progress for long commands: a redrawn bar on a terminal, a plain line per
 * phase otherwise (logs and CI), always on stderr so stdout stays the result.
 */
export interface Progress {
  /** `unit` names what is counted (default "item(s)"). */
  update(event: {
    vault: string;
    phase: string;
    current: number;
    total: number;
    unit?: string;
  }): void;
  done(): void;
}

export function createProgress(stream: NodeJS.WriteStream): Progress {
  const tty = stream.isTTY === true;
  let lastPhase = "";
  let drawn = false;
  return {
    update({ phase, current, total, unit = "item(s)" }) {
      if (tty) {
        const width = 30;
        const ratio = total > 0 ? Math.min(1, current / total) : 0;
        const filled = Math.round(ratio * width);
        stream.write(
          `\r${phase.padEnd(7)} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${current}/${total} ${unit}`,
        );
        drawn = true;
      } else if (phase !== lastPhase) {
        stream.write(`${phase}: ${total} ${unit}\n`);
      }
      lastPhase = phase;
    },
    done() {
      if (drawn) stream.write("\n");
    },
  };
}
