/**
 * Paraphrase noise for the feedback benchmark's simulated users: the same
 * need asked again is rarely typed the same way. One small edit — a word
 * dropped, doubled, swapped with its neighbour, or a filler word added —
 * drawn from a seeded PRNG, so a seed always asks the same words.
 */

/** Words a user adds without changing what they ask. */
const FILLERS = ["please", "again", "actually", "exactly", "quickly", "remind", "so"] as const;

/** The edits a paraphrase may make. */
export type ParaphraseEdit = "none" | "drop" | "duplicate" | "reorder" | "filler";

export interface Paraphrase {
  text: string;
  edit: ParaphraseEdit;
}

/**
 * `text` as one simulated ask: unchanged with probability 1 − `noiseRate`
 * (a need asked again word for word, which is what lets a query's own
 * feedback apply), else with one edit. A word is dropped only from queries
 * of three words or more, so the need survives.
 */
export function paraphrase(text: string, rand: () => number, noiseRate: number): Paraphrase {
  const words = text.split(/\s+/).filter((w) => w !== "");
  if (rand() >= noiseRate || words.length === 0) return { text, edit: "none" };
  const edits: ParaphraseEdit[] = ["duplicate", "filler"];
  if (words.length >= 2) edits.push("reorder");
  if (words.length >= 3) edits.push("drop");
  const edit = edits[Math.floor(rand() * edits.length)] ?? "filler";
  const at = Math.floor(rand() * words.length);
  const out = [...words];
  switch (edit) {
    case "drop":
      out.splice(at, 1);
      break;
    case "duplicate":
      out.splice(at, 0, words[at] ?? "");
      break;
    case "reorder": {
      const i = Math.min(at, words.length - 2);
      out[i] = words[i + 1] ?? "";
      out[i + 1] = words[i] ?? "";
      break;
    }
    default: {
      const filler = FILLERS[Math.floor(rand() * FILLERS.length)] ?? "please";
      // At either end, where people add them; inside a name it would change the need.
      if (rand() < 0.5) out.unshift(filler);
      else out.push(filler);
    }
  }
  return { text: out.join(" "), edit };
}
