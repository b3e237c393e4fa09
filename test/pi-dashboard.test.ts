/**
 * Seeing the vault from a real Pi session with the faux model:
 * `/wiki-dashboard` draws a read-only screen of Pi's TUI components (rendered
 * to lines here, closed with Esc) holding the status and its overview, with
 * nothing a hostile file name holds reaching the terminal raw;
 * `/wiki-digest` writes the digest and says where; `wiki_watch` returns the
 * crontab line and installs nothing. None of them asks the model.
 */
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { beforeEach, describe, expect, it } from "vitest";
import { recordScreens } from "./helpers/pi-screens.ts";
import { piPerTest, textOf, toolResults } from "./helpers/pi-session.ts";
import { makeTempVault, pageText, readEvents, type TempVault } from "./helpers/temp-vault.ts";

const fixture = piPerTest("llm-wiki-dashboard-");
let vault: TempVault;

beforeEach(() => {
  vault = makeTempVault({
    root: fixture.dirs.project,
    pages: {
      "concepts/backpressure": pageText(
        { type: "concept", title: "Backpressure" },
        "See [[concepts/old-limits]].\n",
      ),
      "concepts/old-limits": pageText({
        type: "concept",
        title: "Old limits",
        stale_after: "2001-01-01",
      }),
    },
  });
});

describe("/wiki-dashboard", () => {
  it("draws the status and the overview on a screen that Esc closes", async () => {
    const screens = recordScreens(100);
    const pi = await fixture.start({ ui: screens.ui });
    screens.keys("x", "\u001b");
    await pi.session.prompt("/wiki-dashboard");
    expect(screens.screens).toHaveLength(1);
    const screen = screens.screens[0];
    if (!screen) throw new Error("no screen drawn");
    const text = screen.lines.join("\n");
    expect(text).toContain("llm-wiki dashboard");
    expect(text).toContain("pages   2 (2 canonical, 0 evidence)");
    expect(text).toContain("fresh   1 current, 1 stale, 0 historical");
    expect(text).toContain("queue   0 source(s) to ingest");
    expect(text).toContain("orphans 1 page(s) nothing links to (concepts/backpressure)");
    expect(text).toContain("embed   ");
    expect(text).toContain("Esc or q to close");
    // Another key leaves it open (same lines); Esc closed it.
    expect(screen.after[0]).toEqual(screen.lines);
    expect(screen.after).toHaveLength(2);
    expect(pi.requests).toEqual([]);
  });

  it("q closes it too, and hostile names reach the screen only neutralised", async () => {
    vault.writePage(
      "concepts/evil\u001b]8;;http://x\u0007link\u202e",
      pageText({ type: "concept", title: JSON.stringify("Evil\u001b[2J") }),
    );
    // Raw control bytes in front matter make a malformed page: its path reaches the screen as a diagnostic.
    vault.writePage("concepts/bad\u001b[31m", "---\ntype: concept\ntitle: Bad\u0007\n---\n");
    const screens = recordScreens(100);
    const pi = await fixture.start({ ui: screens.ui });
    screens.keys("q");
    await pi.session.prompt("/wiki-dashboard");
    const lines = screens.screens[0]?.lines ?? [];
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    const text = lines.join("\n");
    expect(text).toContain(
      "orphans 2 page(s) nothing links to (concepts/backpressure, concepts/evil",
    );
    expect(text).toContain("1 malformed");
    expect(text).toMatch(/error: wiki\/concepts\/bad.*\.md: frontmatter is not valid YAML/);
  });
});

describe("/wiki-digest", () => {
  it("writes the digest under .llm-wiki/outputs/ and reports it", async () => {
    const pi = await fixture.start();
    await pi.session.prompt("/wiki-digest --period daily");
    const notice = pi.notices.at(-1);
    expect(notice?.type).toBe("info");
    const today = new Date().toISOString().slice(0, 10);
    expect(notice?.message).toContain(
      `digest (daily) written to .llm-wiki/outputs/digest-${today}.md`,
    );
    const file = join(vault.paths.dir, "outputs", `digest-${today}.md`);
    expect(readFileSync(file, "utf8")).toContain("period: daily");
    expect(readEvents(vault.paths).filter((e) => e.kind === "digest_generated")).toHaveLength(1);

    await pi.session.prompt("/wiki-digest --period monthly");
    expect(pi.notices.at(-1)).toEqual({
      message: "usage: /wiki-digest [--period daily|weekly]",
      type: "warning",
    });
    expect(existsSync(join(vault.paths.dir, "outputs", `digest-${today}-2.md`))).toBe(false);
    expect(pi.requests).toEqual([]);
  });
});

describe("wiki_watch", () => {
  it("returns the crontab line for the vault and installs nothing", async () => {
    const pi = await fixture.start();
    pi.script([fauxToolCall("wiki_watch", { interval: "daily" })], "done");
    await pi.session.prompt("keep the wiki current every day");
    const result = toolResults(pi.session).at(-1);
    expect(result?.isError).toBe(false);
    const text = textOf(result ?? { role: "user", content: "", timestamp: 0 });
    expect(text).toContain("0 8 * * * /bin/bash -lc 'llm-wiki reindex --vault");
    expect(text).toContain("# llm-wiki-autoupdate");
    expect(text).toContain("nothing was installed");
    expect(result?.details).toMatchObject({ installed: false, interval: "daily" });
  });
});
