/**
 * Whether a user turn is conversation with the agent rather than something
 * to remember: "go ahead", "looks good to me", "keep going", "ship it",
 * "no, the other one". Such turns are a large share of a coding session's
 * prompts and name nothing, yet a vault whose pages say "ship", "ahead" or
 * "keep" more often than software English does gave them evidence enough
 * for automatic recall (a surf app's notes on forecasts "days ahead"
 * answered "go ahead"). Automatic recall stays silent on them; an asked
 * recall still searches them as written. English only, like the intents.
 */
import { STOP_WORDS } from "../index/lex-query.ts";

/**
 * Words of conversation: acknowledging, steering and pausing the agent.
 * A closed class, like the stop words: none of them names a subject.
 */
const CHAT_WORDS: ReadonlySet<string> = new Set(
  (
    "yes yeah yea yep yup ok okay k sure fine good great nice cool perfect awesome excellent " +
    "amazing brilliant lovely thanks thank thx ty cheers lgtm agreed agree correct right " +
    "exactly alright indeed true sounds sound looks look seems seem works worked working done " +
    "lol haha hmm hm uh um oh ah wow please pls plz go ahead continue continuing keep going " +
    "proceed carry try next also again more rest remaining another one ones let lets s t stop wait " +
    "hold pause cancel undo never mind nevermind scratch forget actually anyway well now yet " +
    "still much lot bit little thing things same instead though me us"
  ).split(" "),
);

/** Pronouns a short command acts on: "ship it", "commit this", "run that again". */
const REFERENT = /\b(it|that|this|them|those|these)\W*$/;

/** The most words a command on a referent has ("run that one again"). */
const REFERENT_COMMAND_WORDS = 4;

/**
 * Whether `text` is a turn of conversation: every word a stop word or a word
 * of conversation, or a short command on a pronoun with one other word at
 * most ("ship it", "fix that").
 */
export function isConversationTurn(text: string): boolean {
  const lower = text.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'");
  const words = lower.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return false;
  const named = words.filter((w) => !STOP_WORDS.has(w) && !CHAT_WORDS.has(w));
  if (named.length === 0) return true;
  return (
    named.length === 1 &&
    words.length <= REFERENT_COMMAND_WORDS &&
    REFERENT.test(lower.trim()) &&
    // A number or a path is a subject however short the turn ("bump it to 22").
    /^\p{L}+$/u.test(named[0] ?? "") &&
    !/[./_#@`]/.test(lower)
  );
}
