/**
 * Drawing what a Pi command shows with `ctx.ui.custom` in a test: the
 * component the command builds is rendered to lines at a fixed width, then
 * given the keys the test scripts (default: Esc), and `custom` resolves with
 * what the component passed to `done`. Pass `screens.ui` to `start({ ui })`.
 */
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";

/** One screen a command showed: its lines when first drawn, and after each key. */
export interface DrawnScreen {
  lines: string[];
  /** Lines after each scripted key, in order. */
  after: string[][];
  result: unknown;
}

export interface ScreenRecorder {
  ui: Partial<ExtensionUIContext>;
  screens: DrawnScreen[];
  /** Keys sent to the next screen (raw terminal input); the default is one Esc. */
  keys(...keys: string[]): void;
}

/** A recorder drawing at `width` columns. */
export function recordScreens(width = 100): ScreenRecorder {
  const screens: DrawnScreen[] = [];
  let next: string[] = ["\u001b"];
  const custom: ExtensionUIContext["custom"] = async (factory) => {
    const keys = next;
    next = ["\u001b"];
    let result: unknown;
    let finished = false;
    const done = (value: unknown) => {
      finished = true;
      result = value;
    };
    // No terminal: the stand-ins are never drawn on; the component only renders to lines.
    const component = await factory(
      { requestRender: () => undefined } as unknown as Parameters<typeof factory>[0],
      {} as Parameters<typeof factory>[1],
      {} as Parameters<typeof factory>[2],
      done as Parameters<typeof factory>[3],
    );
    const screen: DrawnScreen = {
      lines: [...component.render(width)],
      after: [],
      result: undefined,
    };
    screens.push(screen);
    for (const key of keys) {
      if (finished) break;
      component.handleInput?.(key);
      screen.after.push([...component.render(width)]);
    }
    component.dispose?.();
    screen.result = result;
    if (!finished) throw new Error("the screen did not close on the scripted keys");
    return result as never;
  };
  return {
    ui: { custom },
    screens,
    keys(...keys) {
      next = keys;
    },
  };
}
