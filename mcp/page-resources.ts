/**
 * Vault pages as read-only MCP resources, `llm-wiki://<vault kind>/<page id>`
 * (text/markdown). Only a page the vault's registry knows is served, from a
 * file whose real location lies inside the vault's `wiki/` folder, with
 * secrets redacted as recall redacts bodies: a URI is client input and must
 * never reach a file outside the wiki.
 */
import { closeSync, constants, openSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import {
  ErrorCode,
  type Resource,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { VaultKind } from "../extensions/llm-wiki/lib/feedback/feedback-session.ts";
import { redactSecrets } from "../extensions/llm-wiki/lib/safety/redact.ts";
import { codeOf, findUnsafeChar } from "../extensions/llm-wiki/lib/safety/text.ts";
import { isInside } from "../extensions/llm-wiki/lib/vault/fs-safe.ts";
import { MAX_PAGE_BYTES, type PageMeta } from "../extensions/llm-wiki/lib/vault/page.ts";
import { type VaultPaths, vaultExists } from "../extensions/llm-wiki/lib/vault/paths.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { MAX_ID_CHARS } from "../extensions/llm-wiki/lib/writing/resolve-conflict.ts";
import { ProtocolError, RESOURCE_NOT_FOUND } from "./protocol-error.ts";

export const PAGE_URI_PREFIX = "llm-wiki://";
const MIME = "text/markdown";
/** Pages per `resources/list` answer; the rest follow by cursor. */
export const PAGE_LIST_SIZE = 100;
const KINDS: readonly VaultKind[] = ["project", "personal"];
/** The longest URI looked at (a page id is at most MAX_ID_CHARS, percent-encoding triples it). */
const MAX_URI_CHARS = PAGE_URI_PREFIX.length + "personal/".length + MAX_ID_CHARS * 3;

/** The one template clients fill in to read a page. */
export const PAGE_TEMPLATE: ResourceTemplate = {
  uriTemplate: `${PAGE_URI_PREFIX}{vault}/{+page}`,
  name: "wiki-page",
  title: "llm-wiki page",
  description:
    "A page of the llm-wiki by vault (project or personal) and page id, e.g. llm-wiki://project/concepts/cache-ttl: its Markdown as stored, secrets redacted. Read-only.",
  mimeType: MIME,
};

/** The URI of a page. */
export function pageUri(kind: VaultKind, id: string): string {
  return `${PAGE_URI_PREFIX}${kind}/${id.split("/").map(encodeURIComponent).join("/")}`;
}

function invalidUri(why: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.InvalidParams,
    `resources/read: ${why}; page URIs read llm-wiki://project/<page id> or llm-wiki://personal/<page id>`,
  );
}

/**
 * The vault kind and page id a URI names. Refused, before anything is
 * looked up: another scheme, a query or fragment, control characters, bad
 * percent-encoding, and any segment that is empty, `.`, `..` or holds a
 * separator once decoded (so `%2e%2e` and `%2f` cannot climb out either).
 */
export function parsePageUri(uri: string): { kind: VaultKind; id: string } {
  if (uri.length > MAX_URI_CHARS)
    throw invalidUri(`the URI is longer than ${MAX_URI_CHARS} characters`);
  // Controls, line breaks, bidi and tag characters: never part of a page id, and a way to smuggle bytes into messages.
  const unsafe = findUnsafeChar(uri);
  if (unsafe) throw invalidUri(`the URI holds a ${unsafe.kind} (${codeOf(unsafe.char)})`);
  if (!uri.startsWith(PAGE_URI_PREFIX)) throw invalidUri("not an llm-wiki page URI");
  if (/[?#]/.test(uri)) throw invalidUri("a page URI has no query or fragment");
  const [kindPart, ...segments] = uri.slice(PAGE_URI_PREFIX.length).split("/");
  const kind = KINDS.find((k) => k === kindPart);
  if (!kind) throw invalidUri(`unknown vault "${kindPart ?? ""}"`);
  if (segments.length === 0) throw invalidUri("no page id");
  const decoded: string[] = [];
  for (const segment of segments) {
    let part: string;
    try {
      part = decodeURIComponent(segment);
    } catch {
      throw invalidUri("malformed percent-encoding");
    }
    if (part === "" || part === "." || part === "..")
      throw invalidUri("a page id has no empty, '.' or '..' segments");
    if (/[/\\:]/.test(part) || findUnsafeChar(part))
      throw invalidUri("a page id segment holds a separator or control character");
    decoded.push(part);
  }
  const id = decoded.join("/");
  if (id.length > MAX_ID_CHARS) throw invalidUri(`a page id is at most ${MAX_ID_CHARS} characters`);
  return { kind, id };
}

/** The existing vault of `kind` the service acts on. */
function vaultOf(service: WikiService, kind: VaultKind): VaultPaths | undefined {
  return service.resolveVaults("all").find((v) => v.kind === kind && vaultExists(v));
}

/** What a read returns: the page's text and which page it was. */
export interface PageRead {
  kind: VaultKind;
  page: PageMeta;
  text: string;
}

/**
 * Reads the page a URI names. A page the registry does not know is not
 * found; a file that resolves outside `wiki/` (a symlink swapped in) is
 * refused; the bytes are read without following a final symlink.
 */
export function readPageResource(service: WikiService, uri: string): PageRead {
  const { kind, id } = parsePageUri(uri);
  const vault = vaultOf(service, kind);
  const page = vault ? service.registry(vault).pages.get(id) : undefined;
  if (!vault || !page) {
    throw new ProtocolError(
      RESOURCE_NOT_FOUND,
      `resources/read: no page ${id} in the ${kind} vault`,
      {
        uri,
      },
    );
  }
  let real: string;
  try {
    real = realpathSync(join(vault.dir, page.path));
    if (!isInside(realpathSync(vault.wiki), real)) throw new Error("outside");
  } catch {
    throw new ProtocolError(
      RESOURCE_NOT_FOUND,
      `resources/read: page ${id} is not a readable file inside the ${kind} vault's wiki folder`,
      { uri },
    );
  }
  let bytes: Buffer;
  try {
    const fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    throw new ProtocolError(RESOURCE_NOT_FOUND, `resources/read: page ${id} could not be read`, {
      uri,
    });
  }
  if (bytes.byteLength > MAX_PAGE_BYTES) {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      `resources/read: page ${id} is ${bytes.byteLength} bytes; the limit is ${MAX_PAGE_BYTES}`,
      { uri },
    );
  }
  return { kind, page, text: redactSecrets(bytes.toString("utf8")).text };
}

/** One page of the listing: every page of the project vault, then the personal one, by id. */
export function listPageResources(
  service: WikiService,
  cursor: string | undefined,
): { resources: Resource[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : /^\d{1,9}$/.test(cursor) ? Number(cursor) : -1;
  if (start < 0) throw new ProtocolError(ErrorCode.InvalidParams, "resources/list: invalid cursor");
  const all: Array<{ kind: VaultKind; page: PageMeta }> = [];
  for (const kind of KINDS) {
    const vault = vaultOf(service, kind);
    if (!vault) continue;
    const ids = [...service.registry(vault).pages.values()].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
    for (const page of ids) all.push({ kind, page });
  }
  const slice = all.slice(start, start + PAGE_LIST_SIZE);
  const resources = slice.map(
    ({ kind, page }): Resource => ({
      uri: pageUri(kind, page.id),
      name: `${kind}/${page.id}`,
      title: page.title,
      ...(page.description ? { description: page.description } : {}),
      mimeType: MIME,
    }),
  );
  const next = start + slice.length;
  return next < all.length ? { resources, nextCursor: String(next) } : { resources };
}
