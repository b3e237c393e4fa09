/**
 * Short kind names for what the detectors find: the names that appear in
 * `[REDACTED:<kind>]` marks, in write results and in the event log.
 */

/**
 * The characters a mark grows over on both sides of a span (`redact.ts`): a
 * whole run of word characters goes, so no detector sees new neighbours.
 */
export const RUN = /[A-Za-z0-9_-]/;

/** A secret found in a text: `[start, end)` offsets and its kind. Never carries the value. */
export interface SecretSpan {
  start: number;
  end: number;
  kind: string;
}

/** Kind for each rule of secretlint's recommended preset (by rule id, without the scope). */
const PRESET_KINDS: Record<string, string> = {
  "secretlint-rule-1password": "onepassword_token",
  "secretlint-rule-anthropic": "anthropic_key",
  "secretlint-rule-aws": "aws_secret_key",
  "secretlint-rule-basicauth": "url_password",
  "secretlint-rule-cloudflare": "cloudflare_token",
  "secretlint-rule-database-connection-string": "database_url",
  "secretlint-rule-databricks": "databricks_token",
  "secretlint-rule-docker": "docker_token",
  "secretlint-rule-figma": "figma_token",
  "secretlint-rule-gcp": "private_key",
  "secretlint-rule-github": "github_token",
  "secretlint-rule-gitlab": "gitlab_token",
  "secretlint-rule-grafana": "grafana_token",
  "secretlint-rule-groq": "groq_key",
  "secretlint-rule-hashicorp-vault": "vault_token",
  "secretlint-rule-huggingface": "huggingface_token",
  "secretlint-rule-linear": "linear_key",
  "secretlint-rule-notion": "notion_token",
  "secretlint-rule-npm": "npm_token",
  "secretlint-rule-openai": "openai_key",
  "secretlint-rule-privatekey": "private_key",
  "secretlint-rule-sendgrid": "sendgrid_key",
  "secretlint-rule-shopify": "shopify_token",
  "secretlint-rule-slack": "slack_token",
  "secretlint-rule-stripe": "stripe_key",
  "secretlint-rule-tailscale": "tailscale_key",
  "secretlint-rule-vercel": "vercel_token",
};

/** Finer kinds where one rule reports several things (by message id). */
const MESSAGE_KINDS: Record<string, string> = {
  AWSAccessKeyID: "aws_access_key",
  AWSAccountID: "aws_account_id",
  AWSSecretAccessKey: "aws_secret_key",
  IncomingWebhook: "slack_webhook",
  MongoDBConnection: "database_url",
  MySQLConnection: "database_url",
  PostgreSQLConnection: "database_url",
};

/** The kind for a report of the preset's rule `ruleId` with message `messageId`. */
export function presetKind(ruleId: string, messageId: string | undefined): string {
  if (messageId !== undefined) {
    const byMessage = MESSAGE_KINDS[messageId];
    if (byMessage !== undefined) return byMessage;
  }
  const short = ruleId.replace(/^@secretlint\//, "");
  return PRESET_KINDS[short] ?? short.replace(/^secretlint-rule-/, "").replace(/-/g, "_");
}

const MARK = "[REDACTED:";

/** The placeholder a secret of `kind` is replaced with. */
export function redactionMark(kind: string): string {
  return `${MARK}${kind}]`;
}

/** Whether `value` is (or starts with) a redaction mark, so redacting twice changes nothing. */
export function isRedactionMark(value: string): boolean {
  return value.startsWith(MARK);
}

/** Finds every redaction mark in `text` (their spans must never be redacted again). */
export function markSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const re = /\[REDACTED:[a-z0-9_]+\]/g;
  for (const m of text.matchAll(re)) spans.push([m.index, m.index + m[0].length]);
  return spans;
}
