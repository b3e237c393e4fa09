/**
 * The server's own stdio framing (in place of the SDK's StdioServerTransport,
 * which closes the whole connection on one line over 10 MiB and answers
 * neither garbage nor invalid messages). Lines are split as they stream: a
 * line over the limit is counted and dropped, never held whole, so memory
 * stays bounded whatever a client sends. Every line that cannot be served
 * gets a JSON-RPC error, and serving goes on.
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** The longest line served, in bytes without its newline (the SDK's limit too). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** An error to answer in place of handing a message to the server. */
export interface Refusal {
  code: number;
  message: string;
  data?: unknown;
}

export interface LineTransportOptions {
  maxLineBytes?: number;
  /** Looks at each well-formed message first; a refusal is answered instead of serving it. */
  screen?: (message: JSONRPCMessage) => Refusal | undefined;
  /** Notes on stderr (input ended, a write failed); never protocol. */
  log?: (line: string) => void;
}

const NEWLINE = 0x0a;

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** The id of a rejected message where one can be read; JSON-RPC wants null otherwise. */
function readableId(value: unknown): string | number | null {
  if (typeof value !== "object" || value === null || !("id" in value)) return null;
  const id = (value as { id: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** Newline-delimited JSON-RPC over a readable and a writable stream. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly max: number;
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of the current line once it went over the limit; its bytes are no longer kept. */
  private overflow: number | undefined;
  private closed = false;
  private drained: Promise<void> | undefined;
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly options: LineTransportOptions;

  constructor(input: Readable, output: Writable, options: LineTransportOptions = {}) {
    this.input = input;
    this.output = output;
    this.options = options;
    this.max = options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("close", this.onEnd);
    this.input.on("error", this.onInputError);
  }

  /** Writes one message; waits while the output's buffer is full instead of piling up more. */
  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(message);
  }

  /** Stops reading (nothing more is served or answered after this) and reports the close once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("close", this.onEnd);
    this.input.off("error", this.onInputError);
    this.input.pause();
    this.parts = [];
    this.size = 0;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let at = 0;
    while (at < bytes.length && !this.closed) {
      const newline = bytes.indexOf(NEWLINE, at);
      const end = newline === -1 ? bytes.length : newline;
      this.take(bytes.subarray(at, end));
      if (newline === -1) return;
      at = newline + 1;
      this.endLine();
    }
  };

  private readonly onEnd = (): void => {
    if (this.closed) return;
    this.options.log?.("standard input closed; stopping");
    void this.close();
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.overflow !== undefined) {
      this.overflow += piece.length;
      return;
    }
    if (this.size + piece.length > this.max) {
      // From here on the line is only counted: its bytes are let go at once.
      this.overflow = this.size + piece.length;
      this.parts = [];
      this.size = 0;
      return;
    }
    // A copy, so a short piece does not keep its whole read chunk alive.
    this.parts.push(Buffer.from(piece));
    this.size += piece.length;
  }

  private endLine(): void {
    const overflow = this.overflow;
    const line = overflow === undefined ? Buffer.concat(this.parts, this.size) : undefined;
    this.parts = [];
    this.size = 0;
    this.overflow = undefined;
    if (overflow !== undefined) {
      this.refuse(null, {
        code: ErrorCode.InvalidRequest,
        message: `request too large: ${overflow} bytes, limit ${sizeText(this.max)}; nothing was done`,
      });
      return;
    }
    if (line) this.serveLine(line.toString("utf8").replace(/\r$/, ""));
  }

  private serveLine(text: string): void {
    // Blank lines between messages are tolerated, as most line readers do.
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.refuse(null, {
        code: ErrorCode.ParseError,
        message: "Parse error: the line is not JSON",
      });
      return;
    }
    if (Array.isArray(value)) {
      this.refuse(null, {
        code: ErrorCode.InvalidRequest,
        message: "Invalid Request: batches are not supported; send one message a line",
      });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.refuse(readableId(value), {
        code: ErrorCode.InvalidRequest,
        message:
          'Invalid Request: not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a string "method", or a response to a request of this server)',
      });
      return;
    }
    const message = parsed.data;
    const refusal = this.options.screen?.(message);
    if (refusal) {
      // Only a request has an id to answer; a refused notification is dropped, as JSON-RPC wants.
      if ("method" in message && "id" in message) this.refuse(message.id, refusal);
      return;
    }
    this.onmessage?.(message);
  }

  private refuse(id: string | number | null, error: Refusal): void {
    this.write({ jsonrpc: "2.0", id, error }).catch((e: unknown) =>
      this.onerror?.(e instanceof Error ? e : new Error(String(e))),
    );
  }

  private async write(message: object): Promise<void> {
    const output = this.output;
    // One shared wait per full buffer: a listener per waiting message would pile up under load.
    while (output.writableNeedDrain && !output.destroyed) await this.drain();
    if (output.destroyed || output.writableEnded) throw new Error("the client's end is closed");
    await new Promise<void>((resolve, reject) => {
      output.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }

  private drain(): Promise<void> {
    this.drained ??= new Promise<void>((resolve) => {
      const done = () => {
        this.output.off("drain", done);
        this.output.off("close", done);
        this.output.off("error", done);
        this.drained = undefined;
        resolve();
      };
      this.output.on("drain", done);
      this.output.on("close", done);
      this.output.on("error", done);
    });
    return this.drained;
  }
}
