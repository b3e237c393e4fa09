/**
 * Who decided what: every event a write logs carries the teammate (`by`)
 * and the agent (`agent`), every page it creates names them (`author`,
 * `agent`), and `recent`, the activity log and the digest say so. The
 * teammate is the `author` setting, else the git author of the vault's
 * repository (read from git's files, nothing the repository configures is
 * run), else the account name; the agent is the host: `cli`, the client a
 * shell or hook runs for, an MCP client's own name.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventLogFiles } from "../extensions/llm-wiki/lib/vault/event-log-files.ts";
import { gitAuthor, parseGitUser } from "../extensions/llm-wiki/lib/vault/git-state.ts";
import { vaultPaths } from "../extensions/llm-wiki/lib/vault/paths.ts";
import { runCli } from "./helpers/cli.ts";
import { git } from "./helpers/git-repo.ts";
import {
  answered,
  initializeRequest,
  isolatedEnv,
  responseTo,
  spawnRawServer,
} from "./helpers/mcp-child.ts";
import { randomWord } from "./helpers/random-text.ts";
import { makeTempDir, removeTempDirs } from "./helpers/temp-vault.ts";

afterEach(() => removeTempDirs());

const name = () => `${randomWord(4, 7)} ${randomWord(5, 9)}`;

/** A repository with `user.name` set, and a vault in it. */
function repoVault(user: string, home: string): string {
  const root = makeTempDir("llm-wiki-writer-");
  git(root, "init", "-q");
  git(root, "config", "user.name", user);
  git(root, "config", "user.email", "someone@example.invalid");
  expect(runCli(["init"], { cwd: root, env: { HOME: home } }).status).toBe(0);
  return root;
}

/** Every event of the vault's log, over its files (in git: this clone's own). */
function events(root: string): Array<Record<string, unknown>> {
  return eventLogFiles(vaultPaths(root, "project"))
    .flatMap((file) => readFileSync(file, "utf8").split("\n"))
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("git's author, read from its files", () => {
  it("takes the repository's user over the user's own files, and the environment over both", () => {
    const [mine, global] = [name(), name()];
    const home = makeTempDir();
    writeFileSync(join(home, ".gitconfig"), `[user]\n\tname = ${global}\n\temail = g@x.invalid\n`);
    const root = makeTempDir();
    git(root, "init", "-q");
    expect(gitAuthor(undefined, { HOME: home }).name).toBe(global);
    git(root, "config", "user.name", mine);
    const repo = { workTree: root, gitDir: join(root, ".git"), commonDir: join(root, ".git") };
    expect(gitAuthor(repo, { HOME: home })).toEqual({ name: mine, email: "g@x.invalid" });
    expect(gitAuthor(repo, { HOME: home, GIT_AUTHOR_NAME: "Env Name" }).name).toBe("Env Name");
  });

  it("reads quoted values, escapes and comments as git does, and only the [user] section", () => {
    const text =
      '[core]\n  name = not-this\n[user "x"]\n[User]\n  name = "Ada \\"A\\" Lovelace" # a comment\n  email = ada@x.invalid ; another\n';
    expect(parseGitUser(text)).toEqual({ name: 'Ada "A" Lovelace', email: "ada@x.invalid" });
  });
});

describe("writes say who made them", () => {
  it("records the git author and the CLI on events and pages, and recent and the log show them", () => {
    const user = name();
    const home = makeTempDir();
    const root = repoVault(user, home);
    // A repository's configuration can name programs; reading the author runs none.
    const marker = join(home, "ran");
    git(root, "config", "core.fsmonitor", `touch ${marker}; echo`);
    const title = `Plan ${randomWord()}`;
    const env = { HOME: home };
    expect(
      runCli(["page", "--type", "concept", "--title", title, "--content", "x"], { cwd: root, env })
        .status,
    ).toBe(0);
    const created = events(root).find((e) => e.kind === "page_created");
    expect(created).toMatchObject({ by: user, agent: "cli" });
    const page = readFileSync(join(root, ".llm-wiki", "wiki", `${String(created?.id)}.md`), "utf8");
    expect(page).toContain(`author: ${user}`);
    expect(page).toContain("agent: cli");
    expect(runCli(["recent"], { cwd: root, env }).stdout).toContain(`by ${user} (cli)`);
    expect(readFileSync(join(root, ".llm-wiki", "meta", "log.md"), "utf8")).toContain(
      `by: ${user}`,
    );
    expect(existsSync(marker)).toBe(false);

    // An agent running the CLI through its shell says so.
    runCli(["observe", "--title", randomWord(), "--content", "y"], {
      cwd: root,
      env: { ...env, LLM_WIKI_AGENT: "Codex" },
    });
    expect(events(root).at(-1)).toMatchObject({ kind: "observation_recorded", agent: "codex" });
  });

  it("takes the author setting over git's", () => {
    const [user, configured] = [name(), name()];
    const home = makeTempDir();
    const root = repoVault(user, home);
    const settings = join(home, "settings.json");
    writeFileSync(settings, JSON.stringify({ "llm-wiki": { author: configured } }));
    runCli(["observe", "--title", randomWord(), "--content", "z"], {
      cwd: root,
      env: { HOME: home, LLM_WIKI_SETTINGS: settings },
    });
    expect(events(root).at(-1)).toMatchObject({ by: configured });
  });

  it("records an MCP client by the name it gave in initialize", async () => {
    const user = name();
    const env = isolatedEnv();
    const root = repoVault(user, env.HOME as string);
    const server = spawnRawServer(root, env);
    try {
      const init = initializeRequest(1) as { params: { clientInfo: { name: string } } };
      init.params.clientInfo.name = "Acme Agent";
      await server.send(init);
      await server.waitFor(answered(1));
      await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await server.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "wiki_observe", arguments: { title: randomWord(), content: "w" } },
      });
      await server.waitFor(answered(2));
      expect(responseTo(server.messages, 2).result?.isError).not.toBe(true);
    } finally {
      server.child.kill();
      await server.exited();
    }
    expect(events(root).at(-1)).toMatchObject({ by: user, agent: "acme-agent" });
  });
});
