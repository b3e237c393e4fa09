/**
 * The refusals every capture stage shares: input that is not a capture's,
 * and sizes over a limit. Thrown as `WikiError` and reported by
 * `captureSource` before anything is written.
 */
import { diagnostic, WikiError } from "../diagnostics.ts";

/** The caller's input does not describe one capture. */
export function captureInvalid(message: string): WikiError {
  return new WikiError(diagnostic("capture_invalid_input", "error", message));
}

/** `what` is `bytes` long, over `limit`. */
export function captureTooLarge(what: string, bytes: number, limit: number): WikiError {
  return new WikiError(
    diagnostic(
      "capture_too_large",
      "error",
      `${what} is ${bytes} bytes, over the capture limit of ${limit} bytes; nothing was stored`,
    ),
  );
}
