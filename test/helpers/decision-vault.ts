/**
 * A vault of dated decisions and a card around a given `now`, for the specs
 * of questions about a time ("what did we decide last week"): one decision
 * decided last week and edited today, one decided three months ago, and a
 * card written last week that is no decision. Titles are fresh words each
 * run, so only the dates and types can answer.
 */
import { isoDay } from "../../extensions/llm-wiki/lib/temporal/time-window.ts";
import { randomWord, randomWords } from "./random-text.ts";
import { makeTempVault, pageText } from "./temp-vault.ts";

const DAY = 86_400_000;

/** A vault of dated decisions and cards around `now`, each with a fresh subject. */
export function decisionVault(now: Date, root?: string) {
  const t = Math.floor(now.getTime() / DAY);
  const monday = t - ((t + 3) % 7);
  const subject = () => `${randomWord(6, 9)} ${randomWord(6, 9)}`;
  const lastWeek = { id: "decisions/last-week", title: `Keep the ${subject()}` };
  const older = { id: "decisions/older", title: `Drop the ${subject()}` };
  const card = { id: "concepts/last-week-card", title: `The ${subject()}` };
  const vault = makeTempVault({
    ...(root ? { root } : {}),
    pages: {
      // Decided last week (Wednesday), edited this week: last week's decision.
      [lastWeek.id]: pageText(
        {
          type: "decision",
          title: lastWeek.title,
          created: isoDay(monday - 5),
          updated: isoDay(t),
        },
        `We decided: ${lastWeek.title.toLowerCase()}. ${randomWords(12)}.`,
      ),
      [older.id]: pageText(
        { type: "decision", title: older.title, created: isoDay(t - 90), updated: isoDay(t - 3) },
        `We decided: ${older.title.toLowerCase()}. ${randomWords(12)}.`,
      ),
      // Written last week, but no decision.
      [card.id]: pageText(
        { type: "concept", title: card.title, created: isoDay(monday - 4) },
        `${card.title} ${randomWords(12)}.`,
      ),
    },
  });
  return { vault, lastWeek, older, card };
}
