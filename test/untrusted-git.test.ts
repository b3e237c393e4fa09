/**
 * A project that arrives with its own `.git` (a tarball, a zip, a shared
 * folder) is not trusted: every git command the project runs leaves the
 * programs its configuration and attributes name unrun. The repository
 * here names a marker-writing program under every key git would start a
 * program for (filters, textconv, external diff, merge driver, fsmonitor,
 * pager, hooks, ssh, a transport, gpg, credential helper, editor, a filter
 * reached through `include.path`, `core.attributesFile` and
 * `.git/info/attributes`), with every tracked file stat-dirty, one changed,
 * a signed commit, and a blob missing from a partial clone. Plain git run
 * in it writes markers (the spec could fail); the session-start and
 * user-prompt hooks, MCP `wiki_prime`, recall with code references and a
 * date window, lint, status, and the runner itself write none.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { commitLinks, commitTimeline } from "../extensions/llm-wiki/lib/code-refs/git-history.ts";
import { readGitContext } from "../extensions/llm-wiki/lib/priming/git-context.ts";
import {
  programKeys,
  runGit,
  untrustedGitEnvSync,
} from "../extensions/llm-wiki/lib/safety/untrusted-git.ts";
import { runCli } from "./helpers/cli.ts";
import { commitAll, git, initRepo } from "./helpers/code-repo.ts";
import { closeServices } from "./helpers/index-services.ts";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { piPerTest } from "./helpers/pi-session.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await closeServices();
  removeTempDirs();
});

const HOOKS = [
  "pre-commit",
  "post-commit",
  "post-checkout",
  "post-merge",
  "post-index-change",
  "pre-auto-gc",
  "reference-transaction",
  "fsmonitor-watchman",
  "pre-push",
  "post-rewrite",
];

interface HostileRepo {
  root: string;
  home: string;
  marks: string;
  /** Marker names the repository's configuration can write. */
  keys: string[];
  head: string;
}

/** A program that records its name in `marks`, then passes its input through (a filter still "works"). */
function evilProgram(dir: string, marks: string): string {
  const file = join(dir, "evil.sh");
  writeFileSync(
    file,
    [
      "#!/bin/sh",
      `touch '${marks}/'"$1"`,
      'case "$1" in',
      "  filter.process) exit 1 ;;",
      "  filter.*|include.path|info-attributes|core.attributesFile) exec cat ;;",
      '  diff.textconv) exec cat "$2" ;;',
      "esac",
      "exit 0",
      "",
    ].join("\n"),
  );
  chmodSync(file, 0o755);
  return file;
}

/** A commit object with a PGP signature header on top of HEAD; returns its sha. */
function signedCommit(root: string): string {
  const head = git(root, ["rev-parse", "HEAD"]).trim();
  const tree = git(root, ["rev-parse", "HEAD^{tree}"]).trim();
  const body = [
    `tree ${tree}`,
    `parent ${head}`,
    "author Test <test@example.com> 1736078400 +0000",
    "committer Test <test@example.com> 1736078400 +0000",
    "gpgsig -----BEGIN PGP SIGNATURE-----",
    " ",
    " iQEzBAABCAAdFiEE",
    " -----END PGP SIGNATURE-----",
    "",
    "Signed change",
    "",
  ].join("\n");
  const file = join(root, ".git", "signed-commit");
  writeFileSync(file, body);
  const sha = git(root, ["hash-object", "-t", "commit", "-w", file]).trim();
  unlinkSync(file);
  git(root, ["update-ref", "HEAD", sha]);
  return sha;
}

function hostileRepo(at?: string): HostileRepo {
  const root = at ?? makeTempDir("llm-wiki-hostile-repo-");
  const home = makeTempDir("llm-wiki-hostile-home-");
  const outside = makeTempDir("llm-wiki-hostile-tools-");
  const marks = join(outside, "marks");
  mkdirSync(marks);
  const evil = evilProgram(outside, marks);
  // One executable per key (some keys name a program to run without a shell, with no arguments).
  const bin = join(outside, "bin");
  mkdirSync(bin);
  const run = (name: string) => {
    const file = join(bin, name);
    writeFileSync(file, `#!/bin/sh\nexec '${evil}' '${name}' "$@"\n`);
    chmodSync(file, 0o755);
    return file;
  };
  initRepo(root);
  const symbol = `mergeOffline${randomWords(1)[0]?.replace(/[^a-z]/gi, "") ?? "x"}`;
  const files: Record<string, string> = {
    "src/clean.txt": "clean\n",
    "src/smudge.txt": "smudge\n",
    "src/proc.txt": "process\n",
    "src/odd.txt": "odd name\n",
    "src/info.txt": "info attributes\n",
    "src/attrfile.txt": "attributes file\n",
    "src/inc.txt": "included\n",
    "src/cmd.txt": "diff command\n",
    "src/merge.txt": "merge driver\n",
    "src/code.ts": `export function ${symbol}() {}\n`,
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  writeFileSync(join(root, ".gitignore"), ".llm-wiki/meta/\n");
  writeFileSync(
    join(root, ".gitattributes"),
    [
      "src/clean.txt filter=clean diff=tc",
      "src/smudge.txt filter=smudge",
      "src/proc.txt filter=proc",
      "src/odd.txt filter=a=b.c",
      "src/inc.txt filter=inc",
      "src/cmd.txt diff=cmd",
      "src/merge.txt merge=m",
      "src/code.ts diff=tc",
      "",
    ].join("\n"),
  );
  makeTempVault({
    root,
    pages: {
      "concepts/offline-merge": pageText(
        { type: "concept", title: "Offline merge", updated: "2025-01-10" },
        `# Offline merge\n\nOffline merge lives in \`src/code.ts\` as \`${symbol}\`, with \`src/clean.txt\`.\n`,
      ),
    },
  });
  commitAll(root, "Initial offline merge", "2025-01-05T12:00:00Z");
  writeFileSync(join(root, "src/code.ts"), `export function ${symbol}() { return 1; }\n`);
  commitAll(root, "Change offline merge", "2025-01-06T12:00:00Z");
  const head = signedCommit(root);

  // Hooks, in the repository's own folder and in one core.hooksPath names.
  const hooksDir = join(outside, "hooks");
  mkdirSync(hooksDir);
  for (const dir of [hooksDir, join(root, ".git", "hooks")]) {
    for (const hook of HOOKS) {
      writeFileSync(join(dir, hook), `#!/bin/sh\ntouch '${marks}/hook-${hook}'\n`);
      chmodSync(join(dir, hook), 0o755);
    }
  }
  writeFileSync(join(root, ".git", "info", "attributes"), "src/info.txt filter=info\n");
  const attributesFile = join(outside, "attributes");
  writeFileSync(attributesFile, "src/attrfile.txt filter=attrfile\n");
  writeFileSync(
    join(root, "included.config"),
    `[filter "inc"]\n\tclean = ${run("include.path")}\n\tsmudge = ${run("include.path")}\n`,
  );
  const config: Array<[string, string]> = [
    ["core.repositoryformatversion", "1"],
    ["extensions.partialClone", "origin"],
    ["core.fsmonitor", run("core.fsmonitor")],
    ["core.pager", run("core.pager")],
    ["core.editor", run("core.editor")],
    ["core.sshCommand", run("core.sshCommand")],
    ["core.gitProxy", run("core.gitProxy")],
    ["core.askPass", run("core.askPass")],
    ["core.alternateRefsCommand", run("core.alternateRefsCommand")],
    ["core.hooksPath", hooksDir],
    ["core.attributesFile", attributesFile],
    ["filter.clean.clean", run("filter.clean")],
    ["filter.smudge.smudge", run("filter.smudge")],
    ["filter.smudge.clean", run("filter.smudge")],
    ["filter.proc.process", run("filter.process")],
    ["filter.proc.required", "true"],
    ["filter.a=b.c.clean", run("filter.odd-name")],
    ["filter.info.clean", run("info-attributes")],
    ["filter.attrfile.clean", run("core.attributesFile")],
    ["diff.tc.textconv", run("diff.textconv")],
    ["diff.cmd.command", run("diff.command")],
    ["diff.external", run("diff.external")],
    ["merge.m.driver", run("merge.driver")],
    ["pager.status", run("pager.status")],
    ["pager.log", run("pager.log")],
    ["pager.grep", run("pager.grep")],
    ["log.showSignature", "true"],
    ["gpg.program", run("gpg.program")],
    ["gpg.openpgp.program", run("gpg.program")],
    ["credential.helper", run("credential.helper")],
    ["sequence.editor", run("sequence.editor")],
    ["uploadpack.packObjectsHook", run("uploadpack.packObjectsHook")],
    ["trailer.t.command", run("trailer.command")],
    ["remote.origin.url", `ext::${run("remote.ext")} %S`],
    ["remote.origin.promisor", "true"],
    ["remote.origin.uploadpack", run("remote.uploadpack")],
    ["protocol.ext.allow", "always"],
    ["protocol.allow", "always"],
    ["include.path", "../included.config"],
  ];
  for (const [key, value] of config) git(root, ["config", key, value]);

  // A blob the partial clone "lacks": reading it asks the promisor remote (the ext:: transport).
  const blob = git(root, ["rev-parse", "HEAD:src/code.ts"]).trim();
  rmSync(join(root, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
  // A copied tree: every tracked file stat-dirty, one changed, one untracked.
  const later = new Date(Date.now() + 3_600_000);
  for (const rel of Object.keys(files)) utimesSync(join(root, rel), later, later);
  writeFileSync(join(root, "src/cmd.txt"), "diff command, changed\n");
  writeFileSync(join(root, "src/merge.txt"), "merge driver, changed\n");
  writeFileSync(join(root, "src/new.txt"), "untracked\n");
  const keys = [
    ...config.map(([, v]) => (v.startsWith(bin) ? v.slice(bin.length + 1) : "")),
    "include.path",
    ...HOOKS.map((h) => `hook-${h}`),
  ].filter((k) => k !== "" && !k.includes("/"));
  return { root, home, marks, keys, head };
}

function marksIn(repo: HostileRepo): string[] {
  return readdirSync(repo.marks).sort();
}

/** Plain git, as a person would run it, with nothing but the system and global files left out. */
function plainGit(root: string, args: string[]): void {
  try {
    execFileSync("git", args, {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: root,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        GIT_PAGER: "",
      },
      stdio: ["ignore", "ignore", "ignore"],
      timeout: 30_000,
    });
  } catch {
    // A failing filter or transport is expected; its marker is what counts.
  }
}

describe("a repository is untrusted: no program its configuration or attributes name runs", () => {
  it("plain git in the hostile repository runs its programs (the control)", () => {
    const repo = hostileRepo();
    plainGit(repo.root, ["status", "--porcelain=v2"]);
    plainGit(repo.root, ["log", "-1"]);
    plainGit(repo.root, ["log", "-2", "-p"]);
    plainGit(repo.root, ["diff", "--", "src/cmd.txt"]);
    plainGit(repo.root, ["diff", "--", "src/merge.txt"]);
    plainGit(repo.root, ["grep", "-e", "offline", "HEAD", "--"]);
    const seen = marksIn(repo);
    for (const key of [
      "filter.clean",
      "filter.process",
      "filter.odd-name",
      "include.path",
      "info-attributes",
      "core.attributesFile",
      "core.fsmonitor",
      "gpg.program",
      "diff.external",
      "diff.command",
      "diff.textconv",
      "remote.ext",
    ])
      expect(seen, key).toContain(key);
  });

  it("the runner lists the repository's configuration and blanks every program it names, whatever the driver's name", () => {
    const repo = hostileRepo();
    const env = untrustedGitEnvSync(repo.root, { PATH: process.env.PATH ?? "" });
    expect(env).toBeDefined();
    const blanked = new Map<string, string>();
    const count = Number(env?.GIT_CONFIG_COUNT ?? "0");
    for (let i = 0; i < count; i += 1)
      blanked.set(env?.[`GIT_CONFIG_KEY_${i}`] ?? "", env?.[`GIT_CONFIG_VALUE_${i}`] ?? "");
    expect(blanked.get("filter.a=b.c.clean")).toBe("");
    expect(blanked.get("filter.proc.process")).toBe("");
    expect(blanked.get("filter.proc.required")).toBe("false");
    expect(blanked.get("filter.inc.clean")).toBe("");
    expect(blanked.get("diff.tc.textconv")).toBe("");
    expect(blanked.get("protocol.ext.allow")).toBe("never");
    // Case of section and key does not matter to git; the driver's name is kept as written.
    expect(programKeys(["FILTER.Evil.CLEAN", "Diff.X.TextConv", "core.FSMonitor"])).toEqual([
      "filter.Evil.clean",
      "filter.Evil.required",
      "diff.X.textconv",
      "core.fsmonitor",
    ]);
  });

  it("every git command the project runs, called directly, starts none of them", async () => {
    const repo = hostileRepo();
    const context = await readGitContext(repo.root, { timeoutMs: 30_000 });
    // git still answers: the changed and untracked files, the commits.
    expect(context.files).toEqual(expect.arrayContaining(["src/new.txt"]));
    expect(context.subjects).toContain("Signed change");
    expect(commitTimeline(runGit, repo.root, repo.head)?.commits.length).toBe(3);
    expect(commitLinks(runGit, repo.root, repo.head)).toBeDefined();
    for (const args of [
      ["status", "--porcelain=v2", "-z"],
      ["log", "--numstat", "--summary", "--format=%H", repo.head, "--"],
      ["log", "-p", "-2", repo.head, "--"],
      [
        "grep",
        "--no-color",
        "--no-textconv",
        "-I",
        "-F",
        "-w",
        "-o",
        "-z",
        "-e",
        "offline",
        repo.head,
        "--",
      ],
      ["diff", "HEAD", "--"],
      ["show", repo.head],
    ])
      runGit(args, { cwd: repo.root, noMatchIsEmpty: true });
    expect(marksIn(repo)).toEqual([]);
  });

  it("hook session-start and user-prompt, recall (code references, a date window), lint and status start none of them", () => {
    const repo = hostileRepo();
    const env = { HOME: repo.home, LLM_WIKI_HOOK_DEADLINE_MS: "600000" };
    const session = `s-${Date.now()}`;
    const start = runCli(["hook", "session-start"], {
      cwd: repo.root,
      env,
      input: JSON.stringify({
        session_id: session,
        transcript_path: join(repo.root, "transcript.jsonl"),
        cwd: repo.root,
        hook_event_name: "SessionStart",
        source: "startup",
      }),
    });
    expect(start.status).toBe(0);
    const prompt = runCli(["hook", "user-prompt"], {
      cwd: repo.root,
      env,
      input: JSON.stringify({
        session_id: session,
        transcript_path: join(repo.root, "transcript.jsonl"),
        cwd: repo.root,
        hook_event_name: "UserPromptSubmit",
        prompt: "How does the offline merge work?",
      }),
    });
    expect(prompt.status).toBe(0);
    const recall = runCli(["recall", "offline merge", "--vault", repo.root], {
      cwd: repo.root,
      env,
    });
    expect(recall.status).toBe(0);
    expect(recall.stdout).toContain("concepts/offline-merge");
    const dated = runCli(
      ["recall", "offline merge", "--since", "2025-01-01", "--vault", repo.root],
      {
        cwd: repo.root,
        env,
      },
    );
    expect(dated.status).toBe(0);
    const lint = runCli(["lint", "--vault", repo.root], { cwd: repo.root, env });
    expect(lint.status).not.toBeNull();
    // Status reads the code state and the last commit linking a page.
    const status = runCli(["status", "--vault", repo.root], { cwd: repo.root, env });
    expect(status.status, status.stderr).toBe(0);
    expect(marksIn(repo)).toEqual([]);
  });

  it("MCP wiki_prime, started in the repository, starts none of them", async () => {
    const repo = hostileRepo();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER, "--vault", repo.root],
      cwd: repo.root,
      env: { ...isolatedEnv(), HOME: repo.home },
      stderr: "pipe",
    });
    const client = new Client({ name: "llm-wiki-untrusted-git", version: "0.0.0" });
    await client.connect(transport);
    clients.push(client);
    const result = (await client.callTool({ name: "wiki_prime", arguments: {} })) as CallToolResult;
    expect(result.isError).not.toBe(true);
    const recall = (await client.callTool({
      name: "wiki_recall",
      arguments: { query: "offline merge" },
    })) as CallToolResult;
    expect(recall.isError).not.toBe(true);
    expect(marksIn(repo)).toEqual([]);
  });
});

describe("a Pi session started in an untrusted repository", () => {
  const pi = piPerTest("llm-wiki-hostile-pi-");

  it("primes and recalls without starting any program the repository names", async () => {
    const repo = hostileRepo(pi.dirs.project);
    const session = await pi.start();
    session.script("ok");
    await session.session.prompt("How does the offline merge work?");
    await session.session.waitForIdle();
    expect(session.requests.length).toBeGreaterThan(0);
    expect(marksIn(repo)).toEqual([]);
  });
});
