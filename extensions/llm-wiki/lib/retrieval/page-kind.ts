/**
 * What kind of answer a page is, read from what its writer said about it:
 * its type, folder, title, tags and description. A team's decision record
 * may be a `synthesis`, a `decision` or an `adr`; an incident review an
 * `analysis` titled "Outage…" or "Post-mortem…". Questions of intent ("why
 * did we choose X", "what happened with Y", "how do I Z") prefer the pages
 * of their kind (retrieval/question-intent.ts); time questions ask for
 * kinds too ("which incidents happened in Q3"). Pure, from page metadata.
 */
import { folderKind } from "../vault/folder-kinds.ts";
import type { PageMeta } from "../vault/page.ts";

/** The kinds of answer a question can ask for. */
export type PageKind =
  | "decision"
  | "incident"
  | "howto"
  | "session"
  | "entity"
  | "requirement"
  | "concept"
  | "overview"
  | "finding";

const DECISION_TYPES = new Set(["decision", "decisions", "adr", "adrs", "decision-record"]);
const INCIDENT_TYPES = new Set([
  "incident",
  "incidents",
  "postmortem",
  "post-mortem",
  "outage",
  "retro",
]);
const HOWTO_TYPES = new Set([
  "skill",
  "runbook",
  "howto",
  "how-to",
  "procedure",
  "playbook",
  "guide",
]);
const SESSION_TYPES = new Set(["trajectory", "session"]);
const ENTITY_TYPES = new Set([
  "entity",
  "service",
  "system",
  "component",
  "team",
  "person",
  "tool",
]);
const REQUIREMENT_TYPES = new Set(["requirement", "policy", "slo", "sla", "constraint"]);

/** Words of a title, tag or id that mark each kind. */
const DECISION_WORDS = /\b(adr|adrs|decision|decisions|decided|chose|chosen|choice|why we)\b/;
const DECISION_TITLE = /\b(over|instead of|rather than|vs|versus|not)\b/;
const INCIDENT_WORDS =
  /\b(incident|incidents|inc|outage|outages|post ?mortem|postmortem|sev ?[0-4]|downtime|degradation|root cause|rca)\b/;
/** Narrow on purpose: "a calculation procedure for…" titles a paper, not a runbook. */
const HOWTO_WORDS = /\b(how to|howto|runbook|runbooks|playbook|playbooks|checklist)\b/;
const OVERVIEW_WORDS = /\b(overview|big picture|architecture|map of|high level|at a glance)\b/;
const FINDING_TYPES = new Set([
  "analysis",
  "case",
  "study",
  "investigation",
  "benchmark",
  "finding",
]);
/** Tags only: "an investigation of…" titles a paper as often as a finding. */
const FINDING_TAGS = /\b(analysis|benchmark|study|investigation|findings|measurement)\b/;
/** Tags and ids, not titles: "limit cycles" is no requirement. */
const REQUIREMENT_WORDS = /\b(requirement|requirements|slo|sla|policy)\b/;

/** Lower case, punctuation as spaces: "ADR-007: Kafka" reads "adr 007 kafka". */
function plain(text: string | undefined): string {
  return (text ?? "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

const kindsOf = new WeakMap<PageMeta, ReadonlySet<PageKind>>();

/** The kinds `page` answers as (none for a plain note or source). */
export function pageKinds(page: PageMeta): ReadonlySet<PageKind> {
  const known = kindsOf.get(page);
  if (known) return known;
  const type = page.type.toLowerCase();
  const folder = page.id.split("/")[0] ?? "";
  const title = plain(page.title);
  const named = ` ${title} ${plain(page.id.slice(folder.length + 1))} ${page.tags.map(plain).join(" ")} `;
  const about = plain(page.description ?? page.summary);
  const kinds = new Set<PageKind>();
  // A folder named for a kind of answer (vault/folder-kinds.ts) says it, whatever the type.
  const byFolder = folderKind(page.id);
  if (byFolder) kinds.add(byFolder);
  if (
    DECISION_TYPES.has(type) ||
    DECISION_WORDS.test(named) ||
    /^(decision|adr)\b/.test(about) ||
    /\bdecision record\b/.test(about) ||
    (type === "synthesis" && DECISION_TITLE.test(title))
  )
    kinds.add("decision");
  if (
    INCIDENT_TYPES.has(type) ||
    INCIDENT_WORDS.test(named) ||
    /^(incident|outage|post ?mortem)\b/.test(about)
  )
    kinds.add("incident");
  if (HOWTO_TYPES.has(type) || HOWTO_WORDS.test(named)) kinds.add("howto");
  if (SESSION_TYPES.has(type) || folder === "trajectories") kinds.add("session");
  if (ENTITY_TYPES.has(type)) kinds.add("entity");
  if (REQUIREMENT_TYPES.has(type) || (type !== "source" && REQUIREMENT_WORDS.test(named)))
    kinds.add("requirement");
  if (type === "concept") kinds.add("concept");
  if (FINDING_TYPES.has(type) || FINDING_TAGS.test(page.tags.map(plain).join(" ")))
    kinds.add("finding");
  if ((type === "synthesis" || type === "concept") && OVERVIEW_WORDS.test(named))
    kinds.add("overview");
  kindsOf.set(page, kinds);
  return kinds;
}
