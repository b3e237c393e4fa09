/**
 * Literals without which a rule of secretlint's preset cannot report: for
 * each rule, at least one literal of every pattern its text handler runs
 * (read from the preset's source, version pinned in package.json). A text
 * containing none of them is not shown to that rule — most pages, for most
 * rules. A rule not listed here always runs, so a rule a new preset version
 * adds is never skipped; the spec that runs the detector with and without
 * these hints on the secret corpora catches a pattern that outgrew them.
 */

import type { FoundLiterals } from "./redact-literals.ts";

interface PresetHint {
  /** One of these occurs in every text the rule can report in. */
  any: readonly string[];
  /** The literals are lower case, looked for in the lower-cased text (a pattern ignores case, or spells several cases). */
  anyCase?: boolean;
}

const S = "@secretlint/secretlint-rule-";

/**
 * The preset's version these hints were read from: with it installed, every
 * scanner rule of the preset has a hint (a spec checks it), so a text that
 * rules out every hint is not shown to the preset at all.
 */
export const HINTED_PRESET_VERSION = "13.1.0";

/** By rule id. */
export const PRESET_HINTS: ReadonlyMap<string, PresetHint> = new Map<string, PresetHint>([
  [
    `${S}aws`,
    {
      // Access key ids; `(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)…`
      // (not "secret" alone: notes about secrets hold it on every page) and
      // `(ACCOUNT|account|Account)…`.
      any: [
        "a3t",
        "akia",
        "agpa",
        "aida",
        "aroa",
        "aipa",
        "anpa",
        "anva",
        "asia",
        "secret_access",
        "secretaccess",
        "account",
      ],
      anyCase: true,
    },
  ],
  // package.json and .npmrc checks need a file path, never given; the token needs `npm_`.
  // Reads only `.json` and `.p12` files, and no file extension is given here;
  // its JSON check also needs a `private_key_id` key.
  [`${S}gcp`, { any: ["private_key_id"] }],
  [`${S}npm`, { any: ["npm_", "_authToken=", "x-oauth-basic"] }],
  [`${S}slack`, { any: ["xox", "xapp", "hooks.slack.com"], anyCase: true }],
  [`${S}basicauth`, { any: ["://"] }],
  [`${S}openai`, { any: ["sk-"] }],
  [`${S}anthropic`, { any: ["sk-ant-"] }],
  [`${S}groq`, { any: ["gsk_"] }],
  [`${S}huggingface`, { any: ["hf_"] }],
  [`${S}linear`, { any: ["lin_api_"] }],
  [`${S}notion`, { any: ["ntn_"] }],
  [`${S}privatekey`, { any: ["PRIVATE KEY"] }],
  [`${S}sendgrid`, { any: ["SG."] }],
  [`${S}shopify`, { any: ["shppa_", "shpca_", "shpat_", "shpss_"] }],
  [`${S}stripe`, { any: ["sk_live_", "sk_test_", "rk_live_", "rk_test_"] }],
  [`${S}github`, { any: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"] }],
  [`${S}gitlab`, { any: ["glpat-"] }],
  [`${S}grafana`, { any: ["glc_", "glsa_"] }],
  [`${S}1password`, { any: ["ops_"] }],
  [`${S}database-connection-string`, { any: ["mongodb", "mysql", "postgres"], anyCase: true }],
  [`${S}hashicorp-vault`, { any: ["hvs.", "hvb.", "hvr."] }],
  [`${S}vercel`, { any: ["vcp_", "vci_", "vca_", "vcr_", "vck_"] }],
  [`${S}databricks`, { any: ["dapi"] }],
  [`${S}docker`, { any: ["dckr_pat_"] }],
  [`${S}figma`, { any: ["figd_"] }],
  [`${S}cloudflare`, { any: ["cfk_", "cfut_", "cfat_"] }],
  [`${S}tailscale`, { any: ["tskey-"] }],
  // Reads `secretlint-disable…` comments to ignore reports (which this driver
  // never does) and reports nothing itself; without such a comment it has nothing to read.
  [`${S}filter-comments`, { any: ["secretlint-"] }],
]);

/** The literals the preset's rules are looked up by: as written, and in lower case. */
export const PRESET_LITERALS = {
  exact: [...PRESET_HINTS.values()].flatMap((h) => (h.anyCase ? [] : h.any)),
  anyCase: [...PRESET_HINTS.values()].flatMap((h) => (h.anyCase ? h.any : [])),
};

/** Whether the rule `id` cannot report in a text whose literals are `found`. */
export function presetRuledOut(id: string, found: FoundLiterals): boolean {
  const hint = PRESET_HINTS.get(id);
  if (hint === undefined) return false;
  return !hint.any.some((literal) => found.has(literal, hint.anyCase));
}
