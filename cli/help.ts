/**
 * One command's help: `llm-wiki <command> --help` (or `-h`) and `llm-wiki
 * help <command> [sub-command]` print that command's own lines of the usage
 * text (its options and what it does), the common options and an example.
 * The lines come from the usage text itself, so they never drift from it.
 */

/** One command's entry of the usage text: its first line and the lines continuing it. */
interface UsageBlock {
  command: string;
  /** The alternatives of the second word (`on|off`, `capture`), brackets and angle brackets taken off. */
  subs: string[];
  lines: string[];
}

/** Examples, by command or `command sub-command`; values that start with `-` show the rule for them. */
const EXAMPLES: Record<string, string[]> = {
  init: ['llm-wiki init --name "Payments" --topic "the payments service"'],
  status: ["llm-wiki status --json"],
  setup: ["llm-wiki setup claude-code --user --dry-run", "llm-wiki setup codex --remove"],
  search: ["llm-wiki search retry-policy"],
  recall: ['llm-wiki recall "why do webhooks retry twice" --max 5 --explain'],
  recent: ["llm-wiki recent --since 2026-11-01 --limit 10"],
  reindex: ["llm-wiki reindex --all --which project"],
  lint: ["llm-wiki lint --fix"],
  migrate: ["llm-wiki migrate --dry-run"],
  "rebuild-meta": ["llm-wiki rebuild-meta"],
  digest: ["llm-wiki digest --period daily"],
  watch: ["llm-wiki watch --cron daily"],
  hook: [
    "llm-wiki hook user-prompt < hook-input.json",
    "(in .claude/settings.json: UserPromptSubmit runs `llm-wiki hook user-prompt`)",
  ],
  capture: [
    'llm-wiki capture --file docs/design.md --title "Design notes"',
    "llm-wiki capture --text - < notes.txt   (a file from anywhere, through standard input)",
  ],
  page: [
    'llm-wiki page --type concept --title "Frost" --content "-5 degrees at night"',
    "llm-wiki page --type concept --title Frost --content=-5   (--content -5 works too)",
  ],
  observe: ['llm-wiki observe --title "Flaky CI on arm64" --content - --tag ci < note.md'],
  retro: ['llm-wiki retro --title "Release 2.3" --lesson "tag before publishing"'],
  "log-event": ['llm-wiki log-event deploy --detail \'{"version":"2.3.0"}\''],
  ingest: ["llm-wiki ingest SRC-2026-11-30-design --part 2"],
  "resolve-conflict": [
    "llm-wiki resolve-conflict --selected retry-policy-v2 --other retry-policy --relation supersedes",
  ],
  verify: ["llm-wiki verify retry-policy --date 2026-11-30"],
  export: ["llm-wiki export --okf ../bundle --with-raw"],
  import: ["llm-wiki import --okf ../bundle", "llm-wiki import --okf ../bundle --apply"],
  trajectory: ["llm-wiki trajectory on", "llm-wiki trajectory capture --steps steps.json"],
  "trajectory on": ["llm-wiki trajectory on --pi"],
  "trajectory off": ["llm-wiki trajectory off"],
  "trajectory capture": [
    'llm-wiki trajectory capture --steps steps.json --title "Fix flaky test" --outcome success',
    'steps.json: [{"role":"user","text":"fix the flaky test"},',
    '             {"role":"tool","tool":"bash","args":{"command":"pnpm test"},"text":"1 failed","error":true}]',
  ],
  "trajectory distill": [
    "llm-wiki trajectory distill --batch 3",
    "llm-wiki trajectory distill --mark TRJ-2026-11-30-fix --pages skills/fix-flaky-tests",
  ],
  skills: ['llm-wiki skills recall "set up a release branch" --kind skill'],
  feedback: ["llm-wiki feedback retry-policy --judgment irrelevant"],
  models: ["llm-wiki models status", "llm-wiki models pull --role embed"],
  bench: ["llm-wiki bench beir ./scifact --limit-queries 50", "llm-wiki bench vault"],
};

/** Help topics that name several commands: OKF is export and import. */
const ALIASES: Record<string, string[]> = { okf: ["export", "import"] };

const COMMON = `common options:
  --vault DIR   a folder holding .llm-wiki/ (or that folder); default: nearest from here
  --json        one JSON document on stdout
  -h, --help    this help
An option's value may start with "-" (--content "-5 degrees", or --content=-5).
`;

function blocks(usage: string): UsageBlock[] {
  const found: UsageBlock[] = [];
  let current: UsageBlock | undefined;
  for (const line of usage.split("\n")) {
    const head = /^ {2}([a-z][a-z-]*)(?: +(\S+))?/.exec(line);
    if (head) {
      const second = (head[2] ?? "").replace(/[[\]<>]/g, "");
      const subs = second.startsWith("-") ? [] : second.split("|").filter((s) => s !== "");
      current = { command: head[1] as string, subs, lines: [line] };
      found.push(current);
    } else if (current && /^ {3,}\S/.test(line)) {
      current.lines.push(line);
    } else {
      // A heading, a blank line or the common options: not a command's line.
      current = undefined;
    }
  }
  return found;
}

/**
 * The help of `words` (a command, maybe a sub-command) from `usage`, or
 * undefined when no command of that name is in it.
 */
export function commandHelp(usage: string, words: readonly string[]): string | undefined {
  const [command, sub] = words;
  if (command === undefined) return undefined;
  const names = ALIASES[command] ?? [command];
  const all = blocks(usage).filter((b) => names.includes(b.command));
  if (all.length === 0) return undefined;
  // `trajectory capture`: that block alone; an unknown or absent sub-command: every block.
  const own = sub === undefined ? [] : all.filter((b) => b.subs.includes(sub));
  const shown = own.length > 0 ? own : all;
  const topic = own.length > 0 ? `${command} ${sub}` : command;
  const examples =
    EXAMPLES[topic] ?? EXAMPLES[command] ?? names.flatMap((name) => EXAMPLES[name] ?? []);
  return [
    `usage: llm-wiki ${topic} [options]`,
    "",
    ...shown.flatMap((b) => b.lines),
    "",
    COMMON.trimEnd(),
    ...(examples.length > 0 ? ["", "example:", ...examples.map((e) => `  ${e}`)] : []),
    "",
  ].join("\n");
}

/** Every command the usage text lists, for a test that each has its help and an example. */
export function usageCommands(usage: string): string[] {
  return [...new Set(blocks(usage).map((b) => b.command))];
}

/** Whether `topic` (a command or `command sub-command`) has an example of its own or its command's. */
export function hasExample(topic: string): boolean {
  return Object.hasOwn(EXAMPLES, topic) || Object.hasOwn(EXAMPLES, topic.split(" ")[0] ?? "");
}
