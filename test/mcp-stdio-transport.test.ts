/**
 * The MCP server's line transport (`mcp/stdio-transport.ts`) in process, over
 * in-memory streams: how bytes split into messages whatever the chunking, how
 * an oversized line is counted and dropped, how writes wait for a slow reader
 * without a listener per message, that nothing is served after close, and
 * that after the end of input it closes only once every request read is
 * answered.
 */
import { randomInt } from "node:crypto";
import { PassThrough, Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { LineTransport } from "../mcp/stdio-transport.ts";

interface Harness {
  input: PassThrough;
  transport: LineTransport;
  received: JSONRPCMessage[];
  written(): Array<Record<string, unknown>>;
  closes(): number;
}

async function harness(
  options: { maxLineBytes?: number; output?: Writable; onInputEnd?: (n: number) => void } = {},
): Promise<Harness> {
  const input = new PassThrough();
  let out = "";
  const output =
    options.output ??
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out += chunk.toString("utf8");
        callback();
      },
    });
  const transport = new LineTransport(input, output, {
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
    ...(options.onInputEnd ? { onInputEnd: options.onInputEnd } : {}),
  });
  const received: JSONRPCMessage[] = [];
  let closes = 0;
  transport.onmessage = (m) => received.push(m);
  transport.onclose = () => {
    closes += 1;
  };
  await transport.start();
  return {
    input,
    transport,
    received,
    written: () =>
      out
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    closes: () => closes,
  };
}

/** Lets stream events already queued run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function ping(id: number): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
}

describe("LineTransport", () => {
  it("reassembles messages however the bytes are chunked, CRLF and blank lines included", async () => {
    const h = await harness();
    const ids = Array.from({ length: 20 }, () => randomInt(1e9));
    const bytes = Buffer.from(
      ids.map((id) => `${ping(id)}${randomInt(2) ? "\r\n" : "\n\n"}`).join(""),
    );
    for (let at = 0; at < bytes.length; ) {
      const size = randomInt(1, 40);
      h.input.write(bytes.subarray(at, at + size));
      at += size;
    }
    await settle();
    expect(h.received.map((m) => ("id" in m ? m.id : undefined))).toEqual(ids);
    expect(h.written()).toEqual([]);
  });

  it("counts and drops a line over the limit, answers it, and serves the next one", async () => {
    const limit = randomInt(100, 2000);
    const h = await harness({ maxLineBytes: limit });
    const over = limit + randomInt(1, 5000);
    for (let sent = 0; sent < over; ) {
      const size = Math.min(over - sent, randomInt(1, 700));
      h.input.write("x".repeat(size));
      sent += size;
    }
    h.input.write(`\n${ping(7)}\n`);
    // A line of exactly the limit is served.
    const bare = JSON.stringify({ jsonrpc: "2.0", id: 8, method: "x", params: { p: "" } });
    const exact = {
      jsonrpc: "2.0",
      id: 8,
      method: "x",
      params: { p: "y".repeat(limit - bare.length) },
    };
    expect(Buffer.byteLength(JSON.stringify(exact))).toBe(limit);
    h.input.write(`${JSON.stringify(exact)}\n`);
    await settle();
    expect(h.written()[0]).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: `request too large: ${over} bytes, limit ${limit} bytes; nothing was done`,
      },
    });
    expect(h.written()).toHaveLength(1);
    expect(h.received).toEqual([{ jsonrpc: "2.0", id: 7, method: "ping" }, exact]);
  });

  it("waits for a slow reader with one drain listener, however many messages wait", async () => {
    const chunks: string[] = [];
    let maxDrainListeners = 0;
    const slow = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString("utf8"));
        setImmediate(callback);
      },
    });
    const h = await harness({ output: slow });
    const count = 300;
    const sends = Array.from({ length: count }, (_, i) => {
      const sent = h.transport.send({
        jsonrpc: "2.0",
        id: i,
        result: { pad: "p".repeat(randomInt(50, 200)) },
      });
      maxDrainListeners = Math.max(maxDrainListeners, slow.listenerCount("drain"));
      return sent;
    });
    await Promise.all(sends);
    expect(maxDrainListeners).toBeLessThanOrEqual(1);
    expect(slow.listenerCount("drain")).toBe(0);
    const ids = chunks
      .join("")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => (JSON.parse(l) as { id: number }).id);
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it("serves nothing after close, and reports the close once", async () => {
    const h = await harness();
    h.input.write(`${ping(1)}\n`);
    await settle();
    await h.transport.close();
    await h.transport.close();
    h.input.write(`${ping(2)}\nnot json\n`);
    await settle();
    expect(h.received).toHaveLength(1);
    expect(h.written()).toEqual([]);
    expect(h.closes()).toBe(1);
  });

  it("closes when its input ends, serving what came before the end", async () => {
    const h = await harness();
    h.input.end(`${ping(3)}\n`);
    await settle();
    await settle();
    expect(h.received).toHaveLength(1);
    // The ping read is still owed its answer.
    expect(h.closes()).toBe(0);
    await h.transport.send({ jsonrpc: "2.0", id: 3, result: {} });
    expect(h.closes()).toBe(1);
  });

  it("after its input ends, closes once every request read is answered, a last unterminated line included", async () => {
    const told: number[] = [];
    const h = await harness({ onInputEnd: (n) => told.push(n) });
    const ids = Array.from({ length: randomInt(2, 6) }, (_, i) => i + randomInt(1e6));
    // Ids 7 and "7" are two requests; a notification is owed nothing.
    const lines = [
      ...ids.map(ping),
      JSON.stringify({ jsonrpc: "2.0", id: "7", method: "ping" }),
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    ];
    // The last line has no newline: the end of input ends it.
    h.input.end(lines.join("\n"));
    await settle();
    await settle();
    expect(h.received).toHaveLength(lines.length);
    expect(told).toEqual([ids.length + 2]);
    for (const id of [...ids, "7"]) {
      expect(h.closes()).toBe(0);
      await h.transport.send({ jsonrpc: "2.0", id, result: {} });
    }
    expect(h.closes()).toBe(0);
    await h.transport.send({ jsonrpc: "2.0", id: 7, error: { code: -1, message: "no" } });
    expect(h.closes()).toBe(1);
    expect(h.written()).toHaveLength(ids.length + 2);
  });

  it("does not wait for a request the client withdrew, nor for a notification", async () => {
    const h = await harness();
    const id = randomInt(1e9);
    h.input.end(
      `${ping(id)}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } })}\n`,
    );
    await settle();
    await settle();
    expect(h.received).toHaveLength(2);
    expect(h.closes()).toBe(1);
  });
});
