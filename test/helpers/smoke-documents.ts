/**
 * One small real document per capture format, for the smoke specs: the
 * bytes to capture, and what the capture must make of them (format, title,
 * a sentence of the extracted text). Each speaks of its own harbour thing,
 * so a recall afterwards can tell the captured sources apart.
 */
import { makePdf } from "./pdf-fixture.ts";

export interface SmokeDocument {
  /** The file's name (its extension picks the extractor). */
  file: string;
  bytes: string | Buffer;
  /** The format the packet's manifest records. */
  format: string;
  title: string;
  /** A sentence the extracted `source.md` must hold. */
  text: string;
}

export const SMOKE_DOCUMENTS: readonly SmokeDocument[] = [
  {
    file: "lock-gate.html",
    bytes:
      "<!doctype html><html><head><title>Tidal lock gate</title></head><body>" +
      "<h1>Gate inspection</h1><p>The lock gate seals are inspected every spring tide.</p>" +
      "<ul><li>Check the hinges</li></ul></body></html>",
    format: "html",
    title: "Tidal lock gate",
    text: "The lock gate seals are inspected every spring tide.",
  },
  {
    file: "crane-ledger.pdf",
    bytes: makePdf({
      pages: [["Crane ledger", "Crane four lifts forty tonnes at most."]],
      info: { title: "Crane Ledger" },
    }),
    format: "pdf",
    title: "Crane Ledger",
    text: "Crane four lifts forty tonnes at most.",
  },
  {
    file: "berths.json",
    bytes: `${JSON.stringify({
      title: "Berth allocations",
      berths: [{ berth: "North quay", vessel: "ferries dock at the north quay overnight" }],
    })}\n`,
    format: "json",
    title: "Berth allocations",
    text: "ferries dock at the north quay overnight",
  },
  {
    file: "pilots.xml",
    bytes:
      '<?xml version="1.0"?>\n<harbour><pilot name="Ada">boards vessels at the outer buoy</pilot></harbour>\n',
    format: "xml",
    title: "pilots.xml",
    text: "boards vessels at the outer buoy",
  },
  {
    file: "mooring.txt",
    bytes: "Mooring line tension\n\nMooring lines are checked at each shift change.\n",
    format: "text",
    title: "mooring.txt",
    text: "Mooring lines are checked at each shift change.",
  },
];

/** The page the loopback server serves to `capture --url`. */
export const SERVED_PAGE = {
  path: "/notices/dredging",
  html:
    "<html><head><title>Dredging notice</title></head><body>" +
    "<p>The channel is dredged to twelve metres each autumn.</p></body></html>",
  title: "Dredging notice",
  text: "The channel is dredged to twelve metres each autumn.",
};
