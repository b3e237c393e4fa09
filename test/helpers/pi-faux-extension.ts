/**
 * A Pi extension that registers Pi's faux provider (`--provider faux --model
 * faux-1`), so the real `pi` command runs offline in print, JSON and RPC
 * mode. It answers every model turn with one fixed text.
 */
import { fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function fauxExtension(pi: ExtensionAPI): void {
  const faux = fauxProvider();
  faux.setResponses(Array.from({ length: 20 }, () => fauxAssistantMessage("faux answer")));
  pi.registerProvider(faux.provider);
}
