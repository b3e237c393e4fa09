/**
 * Words a software team uses for the same thing: an "incident" is written
 * up as an "outage" review or a "post-mortem", a "notification" is a
 * "push", "k8s" is "kubernetes". A query word is also searched as its
 * related words (index/lex-query.ts adds them as alternatives of the same
 * term, as it does a camelCase run's joined word), so the question's weight
 * and confidence do not change when no page holds them, and a related word
 * no page of the vault uses is dropped before the search: only the words
 * the vault itself uses are found. Groups are small and unambiguous within
 * a project's notes; a general thesaurus would drift (a "push" in git).
 */

/** Groups of words used for one thing, written as a person types them. */
const GROUPS: readonly (readonly string[])[] = [
  ["incident", "outage", "postmortem", "downtime"],
  ["notification", "notify", "notified"],
  ["deploy", "deployment", "rollout", "release"],
  ["rollback", "roll back"],
  ["owner", "maintainer"],
  ["runbook", "playbook"],
  ["database", "db"],
  ["kubernetes", "k8s"],
  ["configuration", "config"],
  ["repository", "repo"],
  ["production", "prod"],
  ["documentation", "docs"],
  ["pull request", "pr", "merge request", "mr"],
  ["continuous integration", "ci"],
  ["certificate", "cert"],
  ["migration", "schema change"],
  ["backup", "snapshot"],
  ["flaky", "intermittent"],
  ["decision", "adr"],
  ["requirement", "slo", "sla"],
];

/** Word → the other words of its groups (a word may sit in one group only). */
const RELATED: ReadonlyMap<string, readonly string[]> = new Map(
  GROUPS.flatMap((group) => group.map((word) => [word, group.filter((w) => w !== word)])),
);

/** Plural and singular of a plain English word: "incidents" reads "incident". */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The words related to `word` (lower case), none when it has no group. */
export function relatedWords(word: string): readonly string[] {
  return RELATED.get(word) ?? RELATED.get(singular(word)) ?? [];
}
