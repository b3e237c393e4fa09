/**
 * Session priming over MCP, for clients without hooks: the `wiki_prime`
 * tool and the `prime` prompt, through the real stdio server (a child
 * process spoken to by the SDK's client) started in a git repository whose
 * branch and commits are about a topic of the vault. Both carry the block
 * the service's `prime` renders — the one Pi and `llm-wiki hook
 * session-start` deliver — and say so plainly when nothing qualifies.
 */
import { cpSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { PrimeResult } from "../extensions/llm-wiki/lib/priming/prime.ts";
import { NOTHING_TO_PRIME, PRIME_PROMPT } from "../mcp/prompts.ts";
import { makeRepo } from "./helpers/git-repo.ts";
import { closeServices, serviceFor } from "./helpers/index-services.ts";
import { isolatedEnv, SERVER } from "./helpers/mcp-child.ts";
import { metaResult } from "./helpers/mcp-result.ts";
import { randomWords } from "./helpers/random-text.ts";
import { makeTempDir, makeTempVault, pageText, removeTempDirs } from "./helpers/temp-vault.ts";

const EXAMPLE = join(import.meta.dirname, "..", "examples", "acme-notes");
const BRANCH = "feature/idempotency-keys";
const SUBJECTS = [
  "Store idempotency keys for webhook retries",
  "Reject a replayed request whose idempotency key was seen",
];

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await closeServices();
  removeTempDirs();
});

/** The example vault (without derived files) in a fresh git repository about idempotency keys. */
async function primedProject(): Promise<string> {
  const root = join(makeTempDir("llm-wiki-mcp-prime-"), "project");
  cpSync(EXAMPLE, root, {
    recursive: true,
    filter: (src) => !relative(EXAMPLE, src).split(sep).includes("meta"),
  });
  makeRepo(root, BRANCH, SUBJECTS);
  await serviceFor(root).reindex({});
  await closeServices();
  return root;
}

/** The stdio server started in `cwd` (the project's folder, as a client starts it), for `vault`. */
async function connect(cwd: string, vault = cwd): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--vault", vault],
    cwd,
    env: isolatedEnv(),
    stderr: "pipe",
  });
  const client = new Client({ name: "llm-wiki-prime-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function textOf(result: CallToolResult): string {
  const [first] = result.content;
  if (first?.type !== "text") throw new Error("expected one text content block");
  return first.text;
}

describe("MCP priming: a repository whose branch and commits are about a vault topic", () => {
  it("wiki_prime returns the priming block naming the page, as the service renders it", async () => {
    const root = await primedProject();
    const expected = await serviceFor(root).prime();
    await closeServices();
    expect(expected.rendered).toContain("concepts/idempotency-keys");

    const client = await connect(root);
    const result = (await client.callTool({ name: "wiki_prime", arguments: {} })) as CallToolResult;
    expect(result.isError ?? false).toBe(false);
    const structured = metaResult<PrimeResult>(result);
    expect(structured.policy).toBe("priming");
    expect(structured.context.branch).toBe(BRANCH);
    expect(structured.results.map((r) => r.id)).toContain("concepts/idempotency-keys");
    expect(structured.results.length).toBeLessThanOrEqual(3);
    expect(structured.rendered).toBe(expected.rendered);
    expect(textOf(result)).toContain("concepts/idempotency-keys");
  });

  it("the `prime` prompt is listed and its message is the same block", async () => {
    const root = await primedProject();
    const client = await connect(root);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain(PRIME_PROMPT);
    const tool = (await client.callTool({ name: "wiki_prime", arguments: {} })) as CallToolResult;
    const prompt = await client.getPrompt({ name: PRIME_PROMPT });
    expect(prompt.messages).toHaveLength(1);
    const [message] = prompt.messages;
    expect(message?.role).toBe("user");
    const content = message?.content;
    if (content?.type !== "text") throw new Error("expected a text message");
    expect(content.text).toBe(metaResult<PrimeResult>(tool).rendered);
    expect(content.text.startsWith('<wiki-recall source="llm-wiki">')).toBe(true);
  });
});

describe("MCP priming: nothing about the session is stored", () => {
  it("the tool returns no notes and the prompt says there are none", async () => {
    const vault = makeTempVault({
      pages: {
        "concepts/unrelated": pageText(
          { type: "concept", title: "Unrelated" },
          `Notes on ${randomWords(6)}.`,
        ),
      },
    });
    makeRepo(vault.root, `topic/${randomWords(1)}`, [randomWords(4)]);
    await serviceFor(vault.root).reindex({});
    await closeServices();
    const client = await connect(vault.root);
    const tool = (await client.callTool({ name: "wiki_prime", arguments: {} })) as CallToolResult;
    const structured = metaResult<PrimeResult>(tool);
    expect(structured.results).toEqual([]);
    expect(structured.rendered).toBe("");
    const prompt = await client.getPrompt({ name: PRIME_PROMPT });
    const content = prompt.messages[0]?.content;
    expect(content?.type === "text" ? content.text : "").toBe(NOTHING_TO_PRIME);
  });
});
