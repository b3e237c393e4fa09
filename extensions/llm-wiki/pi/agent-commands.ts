/**
 * `/wiki-query`, `/wiki-ingest` and `/wiki-lint`: a person's shortcuts that
 * hand the agent a task, as a user message naming the wiki tool to use. The
 * agent does the work with its tools, so the person sees every step. In
 * print and JSON mode the command returns only once that run has ended, or
 * Pi would end the process before the agent had started.
 */
import type { ExtensionAPI, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import type { AgentRuns } from "./agent-runs.ts";
import type { CommandOutput } from "./command-output.ts";

type Command = Omit<RegisteredCommand, "name" | "sourceInfo">;

/** What a command that hands the agent a task uses. */
export interface AgentCommandDeps {
  send: ExtensionAPI["sendUserMessage"];
  runs: AgentRuns;
  output: CommandOutput;
}

/** What a command asks of the agent; undefined when the arguments are not enough. */
interface AgentCommandSpec {
  description: string;
  usage: string;
  prompt(args: string): string | undefined;
}

function agentCommand(deps: AgentCommandDeps, spec: AgentCommandSpec): Command {
  return {
    description: spec.description,
    async handler(args, ctx) {
      const text = spec.prompt(args.trim());
      if (text === undefined) {
        deps.output.show(ctx, `usage: ${spec.usage}`, "warning");
        return;
      }
      const idle = ctx.isIdle();
      // With a UI (terminal, RPC) the session outlives the command; print and
      // JSON mode end when it returns, so there the run it starts must end first.
      const started = !ctx.hasUI && idle ? deps.runs.nextStart() : undefined;
      // While the agent works, the task waits for it to finish instead of being refused.
      deps.send(text, idle ? undefined : { deliverAs: "followUp" });
      if (started === undefined) return;
      await started;
      await ctx.waitForIdle();
    },
  };
}

/**
 * `/wiki-query <question>`: answer from the wiki, through wiki_recall; an
 * answer that joins several pages into something new is kept as a synthesis
 * page, and the question is logged as a `query` event. Logging the text is
 * fine here: the user asked it on purpose (recall feedback, which happens on
 * its own, keeps only a hash of a query).
 */
export function createQueryCommand(deps: AgentCommandDeps): Command {
  return agentCommand(deps, {
    description:
      "Answer a question from the llm-wiki (wiki_recall), keep a new synthesis as a page, log the question",
    usage: "/wiki-query <question>",
    prompt: (question) =>
      question === ""
        ? undefined
        : [
            `Answer from the project's llm-wiki: ${question}`,
            "",
            "1. Call wiki_recall with this question first, read the pages it returns, and answer only from them, citing each as [[page-id]]. If the wiki holds nothing reliable about it, say so instead of answering from general knowledge, and name the kind of source that would fill the gap.",
            '2. Save the answer only when it joins several of those pages into a finding that none of them states alone: call wiki_ensure_page with type "synthesis", a title naming the finding, and a body that states it and links every page it rests on as [[page-id]]. Do not save an answer that repeats one page or that the wiki could not support; if the title is taken, say so instead of writing another page.',
            '3. Last, record the question: call wiki_log_event with kind "query" and detail {"question": the question above as asked, "cited": the page ids you cited, "synthesis": the saved page\'s id, only when you saved one}.',
          ].join("\n"),
  });
}

/** `/wiki-ingest [source]`: turn captured sources into pages, through wiki_ingest. */
export function createIngestCommand(deps: AgentCommandDeps): Command {
  return agentCommand(deps, {
    description:
      "Turn captured sources into wiki pages (the agent calls wiki_ingest; a sub-agent writes the pages)",
    usage: "/wiki-ingest [SRC-… or source page id]",
    prompt: (source) =>
      [
        source === ""
          ? "Ingest the captured sources waiting in the llm-wiki: call wiki_ingest and follow what it returns."
          : `Ingest the captured source ${source} into the llm-wiki: call wiki_ingest with source ${JSON.stringify(source)} and follow what it returns.`,
        "It writes the pages itself with a sub-agent and marks the source once every part succeeded: report the pages it created, the titles it found taken and its diagnostics, without rewriting those pages.",
        "If it hands you the source's text instead, read every part (ask for the next one with part), create pages with wiki_ensure_page citing the source id in sources and giving relations (supersedes, contradicts, supports, derived_from) to the pages they replace, contradict or support, replace the source page's skeleton summary, then mark the source with wiki_ingest mark_ingested: true.",
        ...(source === ""
          ? ["Continue while sources are waiting, then say what was created."]
          : []),
      ].join(" "),
  });
}

/** `/wiki-lint [--fix]`: check the vault, through wiki_lint. */
export function createLintCommand(deps: AgentCommandDeps): Command {
  return agentCommand(deps, {
    description: "Check the llm-wiki's health (the agent uses wiki_lint; --fix creates gap stubs)",
    usage: "/wiki-lint [--fix]",
    prompt: (args) => {
      const fix = /(^|\s)--?fix(\s|$)/.test(args);
      return `Check the llm-wiki's health: call wiki_lint${fix ? " with fix: true" : ""}, then report the findings by severity with their repairs. Flag contradictions for me to decide; do not resolve them yourself.`;
    },
  });
}
