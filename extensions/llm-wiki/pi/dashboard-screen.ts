/**
 * The `/wiki-dashboard` screen: Pi's own TUI components (a Container holding
 * one Text), read-only, closed with Esc or q. Its text is the status
 * rendering, made terminal-safe, so a hostile page title cannot send the
 * terminal a control sequence through it.
 */
import { Container, matchesKey, Text } from "@earendil-works/pi-tui";
import { renderDiagnostics, renderStatus } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import type { StatusResult } from "../lib/wiki-service.ts";

/** The screen's text: a title, the status (overview included), problems, how to close. */
export function dashboardText(result: StatusResult): string {
  const problems = renderDiagnostics(result.diagnostics.filter((d) => d.severity !== "info"));
  return terminalSafe(
    [
      "llm-wiki dashboard",
      "",
      renderStatus(result) || "no vault here (run /wiki-init)",
      ...(problems ? ["", problems] : []),
      "",
      "Esc or q to close · details: /wiki-lint, /wiki-status",
    ].join("\n"),
  );
}

/** One read-only screen; any key but Esc and q is ignored. */
export class DashboardScreen extends Container {
  readonly #close: () => void;

  constructor(result: StatusResult, close: () => void) {
    super();
    this.#close = close;
    this.addChild(new Text(dashboardText(result), 1, 1));
  }

  handleInput(data: string): void {
    // matchesKey knows every terminal's shape of Esc (raw byte, kitty CSI-u).
    if (matchesKey(data, "escape") || matchesKey(data, "q")) this.#close();
  }
}
