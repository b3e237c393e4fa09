/**
 * The server's own stdio framing (in place of the SDK's StdioServerTransport,
 * which closes the whole connection on one line over 10 MiB and answers
 * neither garbage nor invalid messages). Lines are split as they stream: a
 * line over the limit is counted and dropped, never held whole, so memory
 * stays bounded whatever a client sends. Every line that cannot be served
 * gets a JSON-RPC error, and serving goes on. When the input ends, nothing
 * more is read, but every request already read is still answered before the
 * transport closes: a client that pipes its requests and closes its end
 * (a script, CI) gets all its answers.
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
  /**
   * Told once when the input ends (or fails) with `unanswered` requests read
   * and not yet answered; the transport closes by itself once they are
   * (at once when there are none).
   */
  onInputEnd?: (unanswered: number) => void;
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

/** A request id as a map key: `1` and `"1"` are different requests. */
function idKey(id: unknown): string | undefined {
  if (typeof id === "string") return `s:${id}`;
  if (typeof id === "number") return `n:${id}`;
  return undefined;
}

/** The request a response answers (`id` with `result` or `error`, no `method`); undefined for anything else. */
function answeredKey(message: JSONRPCMessage): string | undefined {
  if ("method" in message || !("id" in message)) return undefined;
  return "result" in message || "error" in message ? idKey(message.id) : undefined;
}

/** The request a client's `notifications/cancelled` withdraws: the SDK answers it no more. */
function withdrawnKey(message: JSONRPCMessage): string | undefined {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message)
    return undefined;
  const params: unknown = message.params;
  if (typeof params !== "object" || params === null || !("requestId" in params)) return undefined;
  return idKey(params.requestId);
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
  /** The input has ended: nothing more is read; the transport closes once `unanswered` is empty. */
  private ended = false;
  /** Requests handed to the server and not answered yet, by `idKey` (a count, should a client reuse an id). */
  private readonly unanswered = new Map<string, number>();
  /** Writes under way (some waiting for the reader to drain): closing waits for them too. */
  private writing = 0;
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
    const answers = answeredKey(message);
    try {
      await this.write(message);
    } finally {
      // Written or not (the client's end closed), it is no longer owed.
      if (answers !== undefined) this.settle(answers);
    }
  }

  /** How many requests read have not been answered yet. */
  get unansweredRequests(): number {
    let count = 0;
    for (const n of this.unanswered.values()) count += n;
    return count;
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
    if (this.closed || this.ended) return;
    this.ended = true;
    this.input.off("data", this.onData);
    this.input.pause();
    // A last line without its newline is a line all the same.
    if (this.size > 0 || this.overflow !== undefined) this.endLine();
    const owed = this.unansweredRequests;
    this.options.log?.(
      owed === 0
        ? "standard input closed; stopping"
        : `standard input closed; stopping once the ${owed} request(s) already read are answered`,
    );
    this.options.onInputEnd?.(owed);
    this.closeWhenAnswered();
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
    // Nothing more can be read, but the answers owed can still be written.
    this.onEnd();
  };

  /** One request fewer owed; the last one after the end of input closes the transport. */
  private settle(key: string): void {
    const count = this.unanswered.get(key);
    if (count === undefined) return;
    if (count > 1) this.unanswered.set(key, count - 1);
    else this.unanswered.delete(key);
    this.closeWhenAnswered();
  }

  private closeWhenAnswered(): void {
    if (this.ended && !this.closed && this.unanswered.size === 0 && this.writing === 0)
      void this.close();
  }

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
    const owed = "method" in message && "id" in message ? idKey(message.id) : undefined;
    if (owed !== undefined) this.unanswered.set(owed, (this.unanswered.get(owed) ?? 0) + 1);
    const withdrawn = withdrawnKey(message);
    if (withdrawn !== undefined) this.settle(withdrawn);
    this.onmessage?.(message);
  }

  private refuse(id: string | number | null, error: Refusal): void {
    this.write({ jsonrpc: "2.0", id, error }).catch((e: unknown) =>
      this.onerror?.(e instanceof Error ? e : new Error(String(e))),
    );
  }

  private async write(message: object): Promise<void> {
    const output = this.output;
    this.writing += 1;
    try {
      // One shared wait per full buffer: a listener per waiting message would pile up under load.
      while (output.writableNeedDrain && !output.destroyed) await this.drain();
      if (output.destroyed || output.writableEnded) throw new Error("the client's end is closed");
      await new Promise<void>((resolve, reject) => {
        output.write(`${JSON.stringify(message)}\n`, (error) =>
          error ? reject(error) : resolve(),
        );
      });
    } finally {
      this.writing -= 1;
      this.closeWhenAnswered();
    }
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
