/**
 * Page slugs. Letters and digits of every script are kept, so two titles that
 * differ only in non-Latin characters get different slugs (older tools
 * stripped them and silently overwrote one observation with another).
 */
import { createHash } from "node:crypto";

const MAX_SLUG_CHARS = 80;

/**
 * Device names Windows reserves in every folder, with or without an
 * extension (`con`, `con.md`): a page there cannot be created or read.
 * Superscript digits (`COM¹`) are reserved too; NFKC has made them digits.
 */
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
/**
 * Names OKF v0.2 (and pi-llm-wiki) reserve for a folder's catalog and the
 * activity log: a page there would never be read as one (reserved-names.ts).
 */
const VIEW_RESERVED = /^(?:index|log)$/;
/** What a reserved slug becomes: `CON` → `con-page`, the same on every OS. */
const RESERVED_SUFFIX = "-page";

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

/**
 * Lowercase kebab-case slug of `title`; never empty, never a Windows device
 * name (`CON` → `con-page`). Links still find such a page: a link resolves
 * by this same slug (`[[CON]]` → `con-page`), and so does a gap's stub.
 */
export function slugify(title: string): string {
  const normal = title.normalize("NFKC").toLowerCase();
  const slug = normal
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/-{2,}/g, "-");
  if (slug === "") return `page-${shortHash(normal)}`;
  if (WINDOWS_RESERVED.test(slug) || VIEW_RESERVED.test(slug)) return `${slug}${RESERVED_SUFFIX}`;
  const chars = [...slug];
  if (chars.length <= MAX_SLUG_CHARS) return slug;
  // A cut slug could collide with another long title's: keep them apart.
  return `${chars
    .slice(0, MAX_SLUG_CHARS - 9)
    .join("")
    .replace(/-+$/, "")}-${shortHash(normal)}`;
}

/**
 * Each folder of a link target slugged: the form a link resolves by, and the
 * id of the page a gap's stub would get (`Concepts/Retry Budget` → `concepts/retry-budget`).
 */
export function slugPath(target: string): string {
  return target
    .split("/")
    .filter((s) => s !== "")
    .map(slugify)
    .join("/");
}

/**
 * `slugPath` as it was before device names got their suffix (`[[CON]]` →
 * `con`), so a page an older vault holds at `con.md` is still found by its
 * links. The same as `slugPath` for every other target.
 */
export function legacySlugPath(target: string): string {
  return slugPath(target)
    .split("/")
    .map((part) =>
      part.endsWith(RESERVED_SUFFIX) &&
      WINDOWS_RESERVED.test(part.slice(0, -RESERVED_SUFFIX.length))
        ? part.slice(0, -RESERVED_SUFFIX.length)
        : part,
    )
    .join("/");
}
