/**
 * A Pi extension that registers Pi's faux provider (`--provider faux --model
 * faux-1`), so the real `pi` command runs offline in print, JSON and RPC
 * mode. By default it answers every model turn with one fixed text. With
 * `LLM_WIKI_FAUX_SCRIPT` (a JSON file of `FauxScriptStep`s) it plays those
 * turns first: a tool call or a text each. With `LLM_WIKI_FAUX_LOG` it
 * appends one JSON line per model request: the text of each message the
 * model was sent, by role, so a test sees what reached the model.
 */
import { appendFileSync, readFileSync } from "node:fs";
import {
  type AssistantMessage,
  type FauxResponseStep,
  fauxAssistantMessage,
  fauxProvider,
  fauxToolCall,
  type Message,
} from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** One scripted model turn: a call of `tool` with `args`, or the text `text`. */
export type FauxScriptStep =
  | { tool: string; args: Record<string, string | number | boolean | string[]> }
  | { text: string };

/** One model request as logged: each message's role and text (tool results included). */
export interface FauxRequest {
  messages: Array<{ role: string; text: string; toolName?: string }>;
}

function textOf(message: Message): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content
    .map((part) => {
      if (part.type === "text") return part.text;
      if (part.type === "toolCall") return `${part.name} ${JSON.stringify(part.arguments)}`;
      return "";
    })
    .join("\n");
}

function reply(step: FauxScriptStep): AssistantMessage {
  return "tool" in step
    ? fauxAssistantMessage([fauxToolCall(step.tool, step.args)], { stopReason: "toolUse" })
    : fauxAssistantMessage(step.text);
}

export default function fauxExtension(pi: ExtensionAPI): void {
  const faux = fauxProvider();
  const scriptFile = process.env.LLM_WIKI_FAUX_SCRIPT;
  const logFile = process.env.LLM_WIKI_FAUX_LOG;
  const script: FauxScriptStep[] = scriptFile
    ? (JSON.parse(readFileSync(scriptFile, "utf8")) as FauxScriptStep[])
    : [];
  const turns = [...script.map(reply), ...Array.from({ length: 20 }, () => "faux answer")];
  faux.setResponses(
    turns.map(
      (turn): FauxResponseStep =>
        (context) => {
          if (logFile) {
            const request: FauxRequest = {
              messages: context.messages.map((m) => ({
                role: m.role,
                text: textOf(m),
                ...(m.role === "toolResult" ? { toolName: m.toolName } : {}),
              })),
            };
            appendFileSync(logFile, `${JSON.stringify(request)}\n`);
          }
          return typeof turn === "string" ? fauxAssistantMessage(turn) : turn;
        },
    ),
  );
  pi.registerProvider(faux.provider);
}
