/**
 * Which page each character of a rendered recall block (`renderRecall`) is
 * spent on. A page's section starts at its `###`/`####` heading line and runs
 * to the next heading, conflict note or the closing tag; its page is the one
 * on the section's `id:` line. Page text inside a section is quoted (`> `)
 * and its own heading marks escaped, so it can never start a section.
 */

const SECTION_HEADING = /^#{3,6} /;
const ID_LINE = /^id: (.+?)(?: · |$)/;
/** Lines that belong to no page: the conflict note and the fence's closing tag. */
const UNATTRIBUTED = /^(?:CONFLICT, |<\/wiki-recall>)/;

/** Characters of the block per page id (newlines included); the frame counts for none. */
export function renderedCharsByPage(rendered: string): Map<string, number> {
  const chars = new Map<string, number>();
  let section: { chars: number; id?: string } | undefined;
  const close = () => {
    if (section?.id !== undefined)
      chars.set(section.id, (chars.get(section.id) ?? 0) + section.chars);
    section = undefined;
  };
  for (const line of rendered.split("\n")) {
    if (SECTION_HEADING.test(line)) {
      close();
      section = { chars: 0 };
    } else if (UNATTRIBUTED.test(line)) {
      close();
    }
    if (!section) continue;
    section.chars += line.length + 1;
    const id = section.id === undefined ? ID_LINE.exec(line)?.[1] : undefined;
    if (id !== undefined) section.id = id;
  }
  close();
  return chars;
}
