/**
 * The `/wiki-settings` screen, built from Pi's own components: a SettingsList
 * with one row per setting (its source and its effective value), a first row
 * choosing the file changes go to, and an Input for the typed settings.
 * Choices cycle with Enter or Space; every change is written at once and the
 * rows are read back from the files, so the screen never shows a value the
 * session would not get. Everything a file holds is neutralised before it is
 * drawn. Esc closes.
 */
import type { Theme } from "@earendil-works/pi-coding-agent";
import {
  type Component,
  Container,
  type Focusable,
  Input,
  type SettingItem,
  SettingsList,
  type SettingsListTheme,
  Text,
} from "@earendil-works/pi-tui";
import { renderDiagnostics } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import {
  type ChangeResult,
  readSettingsSnapshot,
  type SettingFiles,
  type SettingRow,
  type SettingScope,
  type SettingsSnapshot,
} from "./settings-state.ts";

const SCOPE_ID = "scope";
const SOURCE_WIDTH = 7;

export interface SettingsScreenOptions {
  files: SettingFiles;
  /** The file changes go to first; the user can switch on the first row. */
  scope: SettingScope;
  /** Pi's theme (the one `ctx.ui.custom` hands the factory). */
  theme: Theme;
  /** Writes one change (and applies it to the session where it can). */
  change(scope: SettingScope, id: string, raw: string): ChangeResult;
  close(): void;
  /** Asks Pi to draw again after a key. */
  requestRender(): void;
}

/** Pi's settings-list look, from the injected theme (as `getSettingsListTheme` builds it from the global one). */
function listTheme(theme: Theme): SettingsListTheme {
  return {
    label: (text, selected) => (selected ? theme.fg("accent", text) : text),
    value: (text, selected) => (selected ? theme.fg("accent", text) : theme.fg("muted", text)),
    description: (text) => theme.fg("dim", text),
    cursor: theme.fg("accent", "→ "),
    hint: (text) => theme.fg("dim", text),
  };
}

/** Typing one value: Enter writes (or shows why not, staying open), Esc goes back. */
class ValueEditor extends Container implements Focusable {
  readonly #input = new Input();
  readonly #error = new Text("", 1, 0);

  constructor(
    title: string,
    submit: (raw: string) => string | undefined,
    done: () => void,
    theme: Theme,
  ) {
    super();
    this.addChild(new Text(title, 1, 0));
    this.addChild(this.#input);
    this.addChild(this.#error);
    this.#input.onSubmit = (raw) => {
      const refused = submit(raw);
      if (refused === undefined) done();
      else this.#error.setText(theme.fg("error", refused));
    };
    this.#input.onEscape = done;
  }

  get focused(): boolean {
    return this.#input.focused;
  }

  set focused(value: boolean) {
    this.#input.focused = value;
  }

  handleInput(data: string): void {
    this.#input.handleInput(data);
  }
}

export class SettingsScreen extends Container implements Focusable {
  readonly #options: SettingsScreenOptions;
  // No padding: the header's column names line up with the list's rows.
  readonly #header = new Text("", 0, 0);
  readonly #message = new Text("", 0, 0);
  readonly #list: SettingsList;
  readonly #items: SettingItem[];
  #scope: SettingScope;
  #rows: SettingRow[] = [];
  #editor: ValueEditor | undefined;
  #focused = false;

  constructor(options: SettingsScreenOptions) {
    super();
    this.#options = options;
    this.#scope = options.scope;
    const snapshot = readSettingsSnapshot(options.files);
    this.#rows = snapshot.rows;
    this.#items = [this.#scopeItem(), ...snapshot.rows.map((row) => this.#item(row))];
    this.#list = new SettingsList(
      this.#items,
      this.#items.length,
      listTheme(options.theme),
      (id, value) => this.#changed(id, value),
      () => options.close(),
    );
    this.addChild(this.#header);
    this.addChild(this.#list);
    this.addChild(this.#message);
    this.#show(snapshot);
  }

  get focused(): boolean {
    return this.#focused;
  }

  // Pi focuses this screen; the open Input needs it to place the terminal's cursor (IME).
  set focused(value: boolean) {
    this.#focused = value;
    if (this.#editor) this.#editor.focused = value;
  }

  handleInput(data: string): void {
    this.#list.handleInput(data);
    this.#options.requestRender();
  }

  #scopeItem(): SettingItem {
    const { files } = this.#options;
    return {
      id: SCOPE_ID,
      label: this.#label("write to", ""),
      currentValue: this.#scope,
      values: ["project", "global"],
      description: `which file a change goes to: this project's settings (wins; ${files.project}) or Pi's global settings.json`,
    };
  }

  #item(row: SettingRow): SettingItem {
    const item: SettingItem = {
      id: row.id,
      label: this.#label(row.id, row.source),
      currentValue: row.value,
      description: `${row.about}${row.live ? "" : " · applies after /reload"}`,
    };
    if (row.kind === "choice") item.values = [...row.choices];
    else item.submenu = (_current, done) => this.#editorFor(row.id, () => done());
    return item;
  }

  /** Labels padded so the sources form a column (SettingsList pads labels to the longest). */
  #label(id: string, source: string): string {
    const width = Math.max(...this.#rowIds().map((r) => r.length));
    return `${id.padEnd(width)}  ${source.padEnd(SOURCE_WIDTH)}`;
  }

  #rowIds(): string[] {
    return ["write to", ...this.#rows.map((r) => r.id)];
  }

  #editorFor(id: string, done: () => void): Component {
    const row = this.#rows.find((r) => r.id === id);
    const hint =
      row?.kind === "list"
        ? "entries separated by commas or spaces"
        : row?.kind === "integer"
          ? "a whole number"
          : "a text";
    const title = terminalSafe(
      `${id} (now ${row?.value ?? "?"}, from ${row?.source ?? "?"}): ${hint}; Enter writes it to the ${this.#scope} settings, empty removes the ${this.#scope} value, Esc goes back`,
    );
    const editor = new ValueEditor(
      title,
      (raw) => {
        // A refusal is shown in the editor, which stays open; the list's message line is for what was done.
        const result = this.#apply(id, raw, false);
        return result.ok ? undefined : terminalSafe(result.message);
      },
      () => {
        this.#editor = undefined;
        done();
      },
      this.#options.theme,
    );
    editor.focused = this.#focused;
    this.#editor = editor;
    return editor;
  }

  #changed(id: string, value: string): void {
    if (id === SCOPE_ID) {
      this.#scope = value === "project" ? "project" : "global";
      this.#say(`changes now go to ${this.#options.files[this.#scope]}`, false);
      return;
    }
    this.#apply(id, value);
  }

  /** Writes one change, then shows the files as they now are (a refused cycle snaps back). */
  #apply(id: string, raw: string, sayRefusal = true): ChangeResult {
    const result = this.#options.change(this.#scope, id, raw);
    this.#show(readSettingsSnapshot(this.#options.files));
    if (result.ok || sayRefusal) this.#say(result.message, !result.ok);
    return result;
  }

  #show(snapshot: SettingsSnapshot): void {
    this.#rows = snapshot.rows;
    for (const row of snapshot.rows) {
      const item = this.#items.find((i) => i.id === row.id);
      if (!item) continue;
      item.label = this.#label(row.id, row.source);
      item.currentValue = row.value;
    }
    const { theme } = this.#options;
    const problems = renderDiagnostics(snapshot.diagnostics);
    const width = Math.max(...this.#rowIds().map((r) => r.length));
    this.#header.setText(
      [
        theme.bold("llm-wiki settings"),
        ...(problems ? [theme.fg("warning", terminalSafe(problems))] : []),
        "",
        `  ${"setting".padEnd(width)}  ${"from".padEnd(SOURCE_WIDTH)}  value`,
      ].join("\n"),
    );
  }

  #say(message: string, refused: boolean): void {
    const text = terminalSafe(message);
    this.#message.setText(refused ? this.#options.theme.fg("error", text) : text);
  }
}
