/**
 * A minimal GGUF v3 writer: typed metadata and F32 tensors, nothing else.
 * Enough for the tiny test models; see ggml/docs/gguf.md for the format.
 */
import { endianness } from "node:os";

const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const GGUF_VERSION = 3;
const ALIGNMENT = 32;
const GGML_TYPE_F32 = 0;

/** GGUF metadata value type ids. */
const ValueType = { Uint32: 4, Int32: 5, Float32: 6, Bool: 7, String: 8, Array: 9 } as const;

/** One typed metadata value; GGUF needs the type, so plain JS values are not enough. */
export type GgufValue =
  | { type: "u32"; value: number }
  | { type: "i32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "string[]"; value: readonly string[] }
  | { type: "f32[]"; value: ArrayLike<number> }
  | { type: "i32[]"; value: ArrayLike<number> };

/**
 * An F32 tensor. `dims` follow ggml order: dims[0] is the contiguous one, so a
 * weight used as `y = W x` with x of size n_in and y of size n_out has
 * dims [n_in, n_out] and its data is n_out rows of n_in floats.
 */
export interface GgufTensor {
  name: string;
  dims: readonly number[];
  data: Float32Array;
}

/** Metadata entries are written in insertion order, which keeps output byte-stable. */
export type GgufMetadata = ReadonlyArray<readonly [string, GgufValue]>;

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const i32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
};
const u64 = (n: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const f32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(n);
  return b;
};
const str = (s: string): Buffer => {
  const bytes = Buffer.from(s, "utf8");
  return Buffer.concat([u64(bytes.length), bytes]);
};

function encodeValue(v: GgufValue): Buffer[] {
  switch (v.type) {
    case "u32":
      return [u32(ValueType.Uint32), u32(v.value)];
    case "i32":
      return [u32(ValueType.Int32), i32(v.value)];
    case "f32":
      return [u32(ValueType.Float32), f32(v.value)];
    case "bool":
      return [u32(ValueType.Bool), Buffer.from([v.value ? 1 : 0])];
    case "string":
      return [u32(ValueType.String), str(v.value)];
    case "string[]":
      return [
        u32(ValueType.Array),
        u32(ValueType.String),
        u64(v.value.length),
        ...v.value.map(str),
      ];
    case "f32[]": {
      const body = Buffer.alloc(v.value.length * 4);
      for (let i = 0; i < v.value.length; i++) body.writeFloatLE(v.value[i] ?? 0, i * 4);
      return [u32(ValueType.Array), u32(ValueType.Float32), u64(v.value.length), body];
    }
    case "i32[]": {
      const body = Buffer.alloc(v.value.length * 4);
      for (let i = 0; i < v.value.length; i++) body.writeInt32LE(v.value[i] ?? 0, i * 4);
      return [u32(ValueType.Array), u32(ValueType.Int32), u64(v.value.length), body];
    }
  }
}

const padTo = (length: number): number => Math.ceil(length / ALIGNMENT) * ALIGNMENT;

/** Serialises a complete GGUF v3 file into one buffer. */
export function encodeGguf(metadata: GgufMetadata, tensors: readonly GgufTensor[]): Buffer {
  const parts: Buffer[] = [
    u32(GGUF_MAGIC),
    u32(GGUF_VERSION),
    u64(tensors.length),
    u64(metadata.length),
  ];
  for (const [key, value] of metadata) parts.push(str(key), ...encodeValue(value));

  let offset = 0;
  for (const t of tensors) {
    const elements = t.dims.reduce((a, b) => a * b, 1);
    if (elements !== t.data.length) {
      throw new Error(`tensor ${t.name}: dims ${t.dims.join("x")} do not match ${t.data.length}`);
    }
    parts.push(
      str(t.name),
      u32(t.dims.length),
      ...t.dims.map(u64),
      u32(GGML_TYPE_F32),
      u64(offset),
    );
    offset += padTo(t.data.byteLength);
  }

  const header = Buffer.concat(parts);
  const out = Buffer.alloc(padTo(header.length) + offset);
  header.copy(out, 0);
  let at = padTo(header.length);
  const littleEndian = endianness() === "LE";
  for (const t of tensors) {
    if (littleEndian)
      Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).copy(out, at);
    else for (let i = 0; i < t.data.length; i++) out.writeFloatLE(t.data[i] ?? 0, at + i * 4);
    at += padTo(t.data.byteLength);
  }
  return out;
}
