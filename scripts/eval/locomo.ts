/**
 * LoCoMo (Maharana et al., ACL 2024, "Evaluating Very Long-Term
 * Conversational Memory of LLM Agents"; github.com/snap-research/locomo) as
 * a retrieval collection in the BEIR layout: documents are the
 * conversations' turns, queries their QA questions, and a turn is relevant
 * to a question when the dataset lists its dialog id as evidence.
 *
 * Licence: the repository snapshot carries no licence file; the dataset is
 * distributed elsewhere under CC BY-NC 4.0 (attribution, non-commercial).
 * The project uses it for evaluation only and commits neither the dataset
 * nor anything converted from it: the converted collection goes to a
 * gitignored cache folder.
 *
 * Two shapes of the original are read: one conversation per file
 * (`data/multimodal_dialog/locomo10_v2/<id>.json`: `speaker_a`, `speaker_b`,
 * `session_N_date_time`, `session_N` turns `{speaker, dia_id, text,
 * blip_caption?}`, `qa`), and `locomo10.json`, an array of `{sample_id, qa,
 * conversation: {…the same keys…}}`.
 */

/** One turn of a conversation. */
export interface LocomoTurn {
  diaId: string;
  speaker: string;
  text: string;
  caption?: string;
  /** Date and time of the turn's session, as the dataset writes it ("" when it gives none). */
  sessionDate: string;
}

/** One QA annotation. */
export interface LocomoQuestion {
  question: string;
  /** Evidence dialog ids as the dataset writes them (some joined by `;` or spaces, some misspelt). */
  evidence: string[];
  category: number;
}

/** One conversation, whichever shape it came in. */
export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  qa: LocomoQuestion[];
}

/** Input that is not LoCoMo as described above; the message names the place. */
export class LocomoInputError extends Error {
  override name = "LocomoInputError";
}

/** The adversarial category: questions the conversation does not answer. */
export const UNANSWERABLE_CATEGORY = 5;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

function stringField(where: string, row: Record<string, unknown>, key: string): string {
  const value = row[key];
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") throw new LocomoInputError(`${where}: "${key}" must be a string`);
  return value;
}

/** Turns of a conversation object (`session_N` arrays in session order). */
function turnsOf(where: string, conversation: Record<string, unknown>): LocomoTurn[] {
  const sessions = Object.keys(conversation)
    .flatMap((key) => {
      const n = /^session_(\d+)$/.exec(key)?.[1];
      return n === undefined ? [] : [Number(n)];
    })
    .sort((a, b) => a - b);
  const turns: LocomoTurn[] = [];
  for (const n of sessions) {
    const list = conversation[`session_${n}`];
    if (!Array.isArray(list)) throw new LocomoInputError(`${where}: session_${n} is not a list`);
    const date = conversation[`session_${n}_date_time`];
    const sessionDate = typeof date === "string" ? date.trim() : "";
    list.forEach((turn, i) => {
      const at = `${where} session_${n}[${i}]`;
      if (!isRecord(turn)) throw new LocomoInputError(`${at}: not an object`);
      const caption = turn.blip_caption;
      turns.push({
        diaId: stringField(at, turn, "dia_id").trim(),
        speaker: stringField(at, turn, "speaker"),
        text: stringField(at, turn, "text"),
        ...(typeof caption === "string" && caption.trim() !== ""
          ? { caption: caption.trim() }
          : {}),
        sessionDate,
      });
    });
  }
  return turns;
}

function questionsOf(where: string, qa: unknown): LocomoQuestion[] {
  if (!Array.isArray(qa)) throw new LocomoInputError(`${where}: "qa" must be a list`);
  return qa.map((row, i) => {
    const at = `${where} qa[${i}]`;
    if (!isRecord(row)) throw new LocomoInputError(`${at}: not an object`);
    const evidence = row.evidence ?? [];
    if (!Array.isArray(evidence) || evidence.some((e) => typeof e !== "string"))
      throw new LocomoInputError(`${at}: "evidence" must be a list of dialog ids`);
    const category = row.category;
    if (typeof category !== "number" || !Number.isInteger(category))
      throw new LocomoInputError(`${at}: "category" must be an integer`);
    return { question: stringField(at, row, "question"), evidence, category };
  });
}

/**
 * The conversations of one parsed file: `value` is either one conversation
 * (the per-file shape; its id is `fallbackId`, the file name) or an array
 * of `{sample_id, qa, conversation}` (locomo10.json).
 */
export function parseLocomo(value: unknown, fallbackId: string): LocomoConversation[] {
  if (Array.isArray(value)) {
    return value.map((sample, i) => {
      const where = `${fallbackId}[${i}]`;
      if (!isRecord(sample) || !isRecord(sample.conversation))
        throw new LocomoInputError(`${where}: expected {sample_id, qa, conversation}`);
      const id = stringField(where, sample, "sample_id");
      return {
        id,
        turns: turnsOf(`${fallbackId} ${id}`, sample.conversation),
        qa: questionsOf(`${fallbackId} ${id}`, sample.qa),
      };
    });
  }
  if (!isRecord(value) || !("qa" in value))
    throw new LocomoInputError(
      `${fallbackId}: expected one conversation (speaker_a, session_N, qa) or an array of {sample_id, qa, conversation}`,
    );
  return [
    { id: fallbackId, turns: turnsOf(fallbackId, value), qa: questionsOf(fallbackId, value.qa) },
  ];
}

/**
 * A dialog id as the turns spell it: `D<session>:<turn>`. The dataset's
 * evidence has a few slips this reads as meant — `D:11:26` for `D11:26`,
 * `D30:05` for `D30:5`; anything else is returned unchanged (and then
 * resolves to no turn).
 */
export function canonicalDiaId(raw: string): string {
  const m = /^D:?(\d+):0*(\d+)$/.exec(raw.trim());
  return m ? `D${Number(m[1])}:${Number(m[2])}` : raw.trim();
}

/** A document of the BEIR corpus. */
export interface BeirDoc {
  _id: string;
  title: string;
  text: string;
}

/** What a conversion produced, and what it left out and why. */
export interface LocomoCollection {
  corpus: BeirDoc[];
  queries: Array<{ _id: string; text: string }>;
  /** (query id, corpus id, grade) rows of qrels/test.tsv. */
  qrels: Array<[string, string, number]>;
  stats: {
    conversations: number;
    turns: number;
    questions: number;
    /** Questions judged (in the qrels). */
    judged: number;
    /** Category 5 (adversarial): the conversation holds no answer. */
    leftOutUnanswerable: number;
    /** Questions none of whose evidence names a turn. */
    leftOutNoEvidence: number;
    /** Evidence ids naming no turn of their conversation (dropped), with examples. */
    unresolvedEvidence: number;
    unresolvedExamples: string[];
    /** Turns whose dialog id repeats an earlier turn's in the same conversation (the first kept). */
    duplicateTurns: number;
  };
}

/** The document of a turn: id `<conversation>:<dia_id>`, title the speaker and session date. */
export function turnDocument(conversation: string, turn: LocomoTurn): BeirDoc {
  const text = turn.caption ? `${turn.text}\n[shared an image: ${turn.caption}]` : turn.text;
  return {
    _id: `${conversation}:${turn.diaId}`,
    title: turn.sessionDate ? `${turn.speaker}, ${turn.sessionDate}` : turn.speaker,
    text,
  };
}

/**
 * The BEIR collection of `conversations`. Query ids are
 * `<conversation>:q<n>`, n counting every question of the conversation
 * from 1 (left-out ones too, so ids stay stable). Unanswerable (category 5)
 * questions are left out of the queries and the qrels, as are questions
 * whose evidence names no turn.
 */
export function convertLocomo(conversations: readonly LocomoConversation[]): LocomoCollection {
  const out: LocomoCollection = {
    corpus: [],
    queries: [],
    qrels: [],
    stats: {
      conversations: conversations.length,
      turns: 0,
      questions: 0,
      judged: 0,
      leftOutUnanswerable: 0,
      leftOutNoEvidence: 0,
      unresolvedEvidence: 0,
      unresolvedExamples: [],
      duplicateTurns: 0,
    },
  };
  const seenConversations = new Set<string>();
  for (const c of conversations) {
    if (seenConversations.has(c.id))
      throw new LocomoInputError(`conversation "${c.id}" appears twice`);
    seenConversations.add(c.id);
    const turns = new Set<string>();
    for (const turn of c.turns) {
      if (turns.has(turn.diaId)) {
        out.stats.duplicateTurns += 1;
        continue;
      }
      turns.add(turn.diaId);
      out.corpus.push(turnDocument(c.id, turn));
    }
    out.stats.turns += turns.size;
    c.qa.forEach((q, i) => {
      out.stats.questions += 1;
      if (q.category === UNANSWERABLE_CATEGORY) {
        out.stats.leftOutUnanswerable += 1;
        return;
      }
      const relevant = new Set<string>();
      for (const raw of q.evidence.flatMap((e) => e.split(/[\s;,]+/)).filter((e) => e !== "")) {
        const id = canonicalDiaId(raw);
        if (turns.has(id)) relevant.add(id);
        else {
          out.stats.unresolvedEvidence += 1;
          if (out.stats.unresolvedExamples.length < 10)
            out.stats.unresolvedExamples.push(`${c.id} qa[${i}]: ${JSON.stringify(raw)}`);
        }
      }
      if (relevant.size === 0) {
        out.stats.leftOutNoEvidence += 1;
        return;
      }
      const qid = `${c.id}:q${i + 1}`;
      out.queries.push({ _id: qid, text: q.question });
      for (const id of relevant) out.qrels.push([qid, `${c.id}:${id}`, 1]);
      out.stats.judged += 1;
    });
  }
  return out;
}
