/**
 * Capture's redaction is the service-wide one in `safety/redact.ts`; this
 * module only keeps the old import path working.
 */
export {
  addCounts,
  countTotal,
  findSecrets,
  type Redacted,
  type RedactionCounts,
  redactSecrets,
} from "../safety/redact.ts";
