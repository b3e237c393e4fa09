/**
 * OKF v0.2 provenance and trust: who generated a page (`generated: {by, at}`)
 * and who verified it (`verified: [{by, at}]`), read leniently (a producer's
 * odd shape loses that entry, never the page) and turned into the trust
 * label recall shows. Trust is a label only: it never admits or removes a
 * page, and absent metadata is never invented.
 */

/** One actor and instant, as OKF writes `generated` and each `verified` entry. */
export interface ProvenanceMark {
  /** `human:alice`, `pi-llm-wiki/model`, … (at most 120 characters). */
  by: string;
  /** ISO date or timestamp, when given. */
  at?: string;
}

/** A page's provenance, present only when its front matter says something. */
export interface Provenance {
  generated?: ProvenanceMark;
  verified: ProvenanceMark[];
}

/**
 * How far recall may trust a page: reviewed by a person, confirmed by a
 * machine, never verified, or verified before its content was last
 * generated (the check no longer covers what the page says).
 */
export type TrustState =
  | "human-reviewed"
  | "machine-confirmed"
  | "unverified"
  | "verification-outdated";

const MAX_ACTOR_CHARS = 120;
/** More verification entries than this are a dump, not a history: the newest kept. */
const MAX_VERIFICATIONS = 20;

function instant(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  return text !== "" && !Number.isNaN(Date.parse(text)) ? text : undefined;
}

function actor(value: unknown): string | undefined {
  if (typeof value === "string") {
    const text = value.trim();
    return text === "" ? undefined : text.slice(0, MAX_ACTOR_CHARS);
  }
  // `by: {type: human, id: alice}` as some producers write it.
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const kind = typeof record.type === "string" ? record.type.trim() : "";
    const id = typeof record.id === "string" ? record.id : record.name;
    const name = typeof id === "string" ? id.trim() : "";
    const joined = kind && name ? `${kind}:${name}` : kind || name;
    return joined === "" ? undefined : joined.slice(0, MAX_ACTOR_CHARS);
  }
  return undefined;
}

function mark(value: unknown): ProvenanceMark | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const by = actor(record.by);
  if (by === undefined) return undefined;
  const at = instant(record.at);
  return at === undefined ? { by } : { by, at };
}

/** The provenance in front matter `generated` and `verified`, or undefined when neither says anything usable. */
export function parseProvenance(generated: unknown, verified: unknown): Provenance | undefined {
  const gen = mark(generated);
  const list = Array.isArray(verified) ? verified : verified === undefined ? [] : [verified];
  const checks = list
    .map(mark)
    .filter((m): m is ProvenanceMark => m !== undefined)
    .slice(-MAX_VERIFICATIONS);
  if (gen === undefined && checks.length === 0) return undefined;
  return gen === undefined ? { verified: checks } : { generated: gen, verified: checks };
}

/** Whether an actor names a person: `human:…`, `human/…`, `user:…`, or a bare `human`. */
export function isHumanActor(by: string): boolean {
  return /^(?:human|person|user)(?:$|[:/])/i.test(by.trim());
}

function time(at: string | undefined): number | undefined {
  if (at === undefined) return undefined;
  const t = Date.parse(at);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * The trust label of a page with provenance: the newest verification
 * decides human or machine; one older than the generation is outdated.
 * Undefined for a page without provenance (an ordinary page is not called
 * "unverified": nobody claimed anything about it).
 */
export function trustState(provenance: Provenance | undefined): TrustState | undefined {
  if (provenance === undefined) return undefined;
  if (provenance.verified.length === 0) return "unverified";
  const generatedAt = time(provenance.generated?.at);
  const dated = provenance.verified.map((m) => ({ m, t: time(m.at) }));
  const newest = dated.reduce((best, next) =>
    next.t !== undefined && (best.t === undefined || next.t >= best.t) ? next : best,
  );
  if (generatedAt !== undefined && newest.t !== undefined && newest.t < generatedAt) {
    return "verification-outdated";
  }
  return dated.some(
    ({ m, t }) =>
      isHumanActor(m.by) && (generatedAt === undefined || t === undefined || t >= generatedAt),
  )
    ? "human-reviewed"
    : "machine-confirmed";
}
