/**
 * Promise rejections nobody handled. pdf.js rejects inside its own code
 * once a document read past its deadline is destroyed (`capture_pdf_timeout`
 * was already answered): left to Node's default, that late rejection ends
 * the MCP server (exit 1) and prints a stack after the CLI's answer. A host
 * installs this once at its entry: each such rejection becomes one
 * structured warning on stderr, and the process goes on serving.
 */
import { diagnostic, errorMessage } from "./diagnostics.ts";
import { neutraliseLine } from "./safety/text.ts";

/** The warning for one unhandled rejection: code, severity and a one-line message. */
export function unhandledRejectionDiagnostic(reason: unknown) {
  const name = reason instanceof Error ? reason.name : typeof reason;
  const why = neutraliseLine(errorMessage(reason)).slice(0, 300);
  return diagnostic(
    "unhandled_rejection",
    "warning",
    `a background task failed after its work was answered or abandoned (${name}: ${why}); nothing was lost and the process goes on`,
  );
}

/** Reports every unhandled rejection through `write` (one line each) instead of exiting. */
export function reportUnhandledRejections(write: (line: string) => void): void {
  process.on("unhandledRejection", (reason) => {
    try {
      write(JSON.stringify(unhandledRejectionDiagnostic(reason)));
    } catch {
      // Reporting must not fail in turn: nothing more can be done for it.
    }
  });
}
