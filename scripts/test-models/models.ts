/**
 * Hand-set weights for three tiny `qwen3` GGUF models that QMD loads through
 * node-llama-cpp like real ones. They exist to test plumbing offline: an
 * embedder, a reranker and a query-expansion generator, each a few MB.
 *
 * Every token embedding has norm 8 (RMS 1 over 64 dims), so RMSNorm leaves it
 * unchanged and the arithmetic below can be followed by hand.
 */
import { encodeGguf, type GgufMetadata, type GgufTensor } from "./gguf-writer.ts";
import { buildVocab, type Vocab, wordVector } from "./vocab.ts";

const N_EMBD = 64;
const CONTEXT_LENGTH = 8192;
const RMS_EPS = 1e-6;
const POOLING_LAST = 3;
const POOLING_RANK = 4;

/** A dense matrix for `y = W x`, stored as ggml expects: nOut rows of nIn floats. */
class Matrix {
  readonly nIn: number;
  readonly nOut: number;
  readonly data: Float32Array;
  constructor(nIn: number, nOut: number) {
    this.nIn = nIn;
    this.nOut = nOut;
    this.data = new Float32Array(nIn * nOut);
  }
  set(out: number, input: number, value: number): void {
    this.data[out * this.nIn + input] = value;
  }
  tensor(name: string): GgufTensor {
    return { name, dims: [this.nIn, this.nOut], data: this.data };
  }
}

const filled = (n: number, value: number): Float32Array => new Float32Array(n).fill(value);

interface Shape {
  layers: number;
  heads: number;
  headDim: number;
  ff: number;
  ropeBase: number;
}

/** The weights of one transformer block; all zero until a builder sets them. */
class Layer {
  readonly attnNorm = filled(N_EMBD, 1);
  readonly q: Matrix;
  readonly k: Matrix;
  readonly v: Matrix;
  readonly o: Matrix;
  readonly qNorm: Float32Array;
  readonly kNorm: Float32Array;
  readonly ffnNorm = filled(N_EMBD, 1);
  readonly gate: Matrix;
  readonly up: Matrix;
  readonly down: Matrix;
  constructor(shape: Shape) {
    const width = shape.heads * shape.headDim;
    this.q = new Matrix(N_EMBD, width);
    this.k = new Matrix(N_EMBD, width);
    this.v = new Matrix(N_EMBD, width);
    this.o = new Matrix(width, N_EMBD);
    this.qNorm = filled(shape.headDim, 1);
    this.kNorm = filled(shape.headDim, 1);
    this.gate = new Matrix(N_EMBD, shape.ff);
    this.up = new Matrix(N_EMBD, shape.ff);
    this.down = new Matrix(shape.ff, N_EMBD);
  }
  tensors(i: number): GgufTensor[] {
    const p = `blk.${i}`;
    return [
      { name: `${p}.attn_norm.weight`, dims: [N_EMBD], data: this.attnNorm },
      this.q.tensor(`${p}.attn_q.weight`),
      this.k.tensor(`${p}.attn_k.weight`),
      this.v.tensor(`${p}.attn_v.weight`),
      this.o.tensor(`${p}.attn_output.weight`),
      { name: `${p}.attn_q_norm.weight`, dims: [this.qNorm.length], data: this.qNorm },
      { name: `${p}.attn_k_norm.weight`, dims: [this.kNorm.length], data: this.kNorm },
      { name: `${p}.ffn_norm.weight`, dims: [N_EMBD], data: this.ffnNorm },
      this.gate.tensor(`${p}.ffn_gate.weight`),
      this.up.tensor(`${p}.ffn_up.weight`),
      this.down.tensor(`${p}.ffn_down.weight`),
    ];
  }
}

function metadata(name: string, vocab: Vocab, shape: Shape, extra: GgufMetadata): GgufMetadata {
  return [
    ["general.architecture", { type: "string", value: "qwen3" }],
    ["general.name", { type: "string", value: name }],
    ["general.file_type", { type: "u32", value: 0 }],
    ["qwen3.context_length", { type: "u32", value: CONTEXT_LENGTH }],
    ["qwen3.embedding_length", { type: "u32", value: N_EMBD }],
    ["qwen3.block_count", { type: "u32", value: shape.layers }],
    ["qwen3.feed_forward_length", { type: "u32", value: shape.ff }],
    ["qwen3.attention.head_count", { type: "u32", value: shape.heads }],
    ["qwen3.attention.head_count_kv", { type: "u32", value: shape.heads }],
    ["qwen3.attention.key_length", { type: "u32", value: shape.headDim }],
    ["qwen3.attention.value_length", { type: "u32", value: shape.headDim }],
    ["qwen3.attention.layer_norm_rms_epsilon", { type: "f32", value: RMS_EPS }],
    ["qwen3.rope.freq_base", { type: "f32", value: shape.ropeBase }],
    ...extra,
    ["tokenizer.ggml.model", { type: "string", value: "llama" }],
    ["tokenizer.ggml.tokens", { type: "string[]", value: vocab.tokens.map((t) => t.text) }],
    ["tokenizer.ggml.scores", { type: "f32[]", value: vocab.tokens.map((t) => t.score) }],
    ["tokenizer.ggml.token_type", { type: "i32[]", value: vocab.tokens.map((t) => t.type) }],
    ["tokenizer.ggml.bos_token_id", { type: "u32", value: vocab.bos }],
    ["tokenizer.ggml.eos_token_id", { type: "u32", value: vocab.eos }],
    ["tokenizer.ggml.unknown_token_id", { type: "u32", value: vocab.unk }],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: true }],
    ["tokenizer.ggml.add_eos_token", { type: "bool", value: false }],
    ["tokenizer.ggml.add_space_prefix", { type: "bool", value: true }],
  ];
}

function assemble(
  meta: GgufMetadata,
  embeddings: Matrix,
  layers: Layer[],
  heads: GgufTensor[],
): Buffer {
  return encodeGguf(meta, [
    embeddings.tensor("token_embd.weight"),
    { name: "output_norm.weight", dims: [N_EMBD], data: filled(N_EMBD, 1) },
    ...heads,
    ...layers.flatMap((l, i) => l.tensors(i)),
  ]);
}

/**
 * Bag-of-words embedder. Each known content word has a fixed random direction;
 * everything else (stop words, punctuation, unknown fragments) sits on one
 * "junk" axis that RMSNorm's weight then mutes. With Q = K = 0 attention is a
 * plain average over the prefix, V = I and O = 1000·I make that average swamp
 * the last token's own vector, and LAST pooling returns it: the embedding is
 * the mean of the text's content-word vectors.
 */
export function buildEmbedModel(): Buffer {
  const vocab = buildVocab({ words: true });
  const shape: Shape = { layers: 1, heads: 1, headDim: N_EMBD, ff: 8, ropeBase: 1e6 };
  const junk = N_EMBD - 1;
  const emb = new Matrix(N_EMBD, vocab.tokens.length);
  vocab.tokens.forEach((t, id) => {
    if (t.kind === "word" && t.word) {
      const u = wordVector(t.word, junk);
      for (let d = 0; d < junk; d++) emb.set(id, d, 8 * (u[d] ?? 0));
    } else {
      emb.set(id, junk, 8);
    }
  });
  const layer = new Layer(shape);
  layer.attnNorm[junk] = 0;
  for (let d = 0; d < N_EMBD; d++) {
    layer.v.set(d, d, 1);
    layer.o.set(d, d, 1000);
  }
  const meta = metadata("llm-wiki test embedder", vocab, shape, [
    ["qwen3.pooling_type", { type: "u32", value: POOLING_LAST }],
  ]);
  return assemble(meta, emb, [layer], []);
}

// Residual-stream axes of the reranker. Dims 0..47 hold word directions.
const R = {
  words: 48,
  constant: 48,
  content: 49,
  sink: 50,
  sep: 51,
  end: 52,
  pad: 53,
  matchSink: 54,
  afterSep: 55,
  queryWord: 56,
  score: 57,
} as const;

/** node-llama-cpp fills {document} and {query}; the two markers are control tokens. */
const RERANK_TEMPLATE = "{document}<|query|>{query}<|score|>";

/**
 * Head dims untouched by RoPE. With NEOX RoPE over 128 dims, pair d rotates
 * by pos·base^(-d/64); at base 1e30 the pairs d ≥ 32 (dims 32..63, 96..127)
 * turn by under 1e-11 rad, so dot products there depend on content only.
 */
const STILL_DIMS = [
  ...Array.from({ length: 32 }, (_, i) => 32 + i),
  ...Array.from({ length: 32 }, (_, i) => 96 + i),
];
const still = (i: number): number => {
  const d = STILL_DIMS[i];
  if (d === undefined) throw new Error(`no RoPE-free head dim #${i}`);
  return d;
};

/**
 * Reranker that scores the share of query words found in the document. The
 * template puts the document first: [BOS] doc <|query|> query <|score|>.
 * Layer 1, head A: each word attends to earlier copies of itself and, with
 * the same weight, to BOS; the weight left on BOS is 1/2 when the word is new
 * and at most 1/3 when it was seen before. Head B averages a "<|query|> seen"
 * flag, which the FFN turns into 1 for query-side content words and 0
 * elsewhere. Layer 2: <|score|> attends only to query words and averages
 * 1/2 − (BOS weight). The yes/no head maps that average through a sigmoid:
 * about 0.05 with no overlap, 0.9 when every query word occurs once. Only
 * known words count (see vocab.ts), and a word repeated within the query
 * counts as found.
 */
export function buildRerankModel(): Buffer {
  const vocab = buildVocab({ words: true });
  const headDim = 128;
  const shape: Shape = { layers: 2, heads: 2, headDim, ff: 8, ropeBase: 1e30 };
  const wordScale = Math.sqrt(62);
  const emb = new Matrix(N_EMBD, vocab.tokens.length);
  const flagged = (id: number, axis: number) => {
    emb.set(id, R.constant, 1);
    emb.set(id, axis, 1);
    emb.set(id, R.pad, Math.sqrt(62));
  };
  vocab.tokens.forEach((t, id) => {
    if (t.kind === "word" && t.word) {
      const u = wordVector(t.word, R.words);
      for (let d = 0; d < R.words; d++) emb.set(id, d, wordScale * (u[d] ?? 0));
      emb.set(id, R.constant, 1);
      emb.set(id, R.content, 1);
    } else if (id === vocab.bos) flagged(id, R.sink);
    else if (id === vocab.querySep) flagged(id, R.sep);
    else if (id === vocab.scoreEnd) flagged(id, R.end);
    else {
      emb.set(id, R.constant, 1);
      emb.set(id, R.pad, Math.sqrt(63));
    }
  });

  const l1 = new Layer(shape);
  const headB = headDim;
  for (let d = 0; d < R.words; d++) {
    l1.q.set(still(d), d, 1 / wordScale);
    l1.k.set(still(d), d, 1 / wordScale);
  }
  // Equal logits for "same word" and "BOS": both have cosine 1/√2 with the query.
  l1.q.set(still(R.words), R.content, 1);
  l1.k.set(still(R.words), R.sink, 1);
  l1.v.set(0, R.sink, 1);
  l1.o.set(R.matchSink, 0, 1);
  // Head B: Q = K = 0, so a uniform average of the separator flag.
  l1.v.set(headB, R.sep, 1);
  l1.o.set(R.afterSep, headB, 1);
  l1.qNorm.fill(3);
  l1.kNorm.fill(3);
  // SiLU(Kx − 5) − SiLU(Kx − 6) is ≈0 at x = 0 and 1 for x ≥ 1/4096, times "is a word".
  const steep = 1e5;
  for (const [unit, shift, sign] of [
    [0, 5, 1],
    [1, 6, -1],
  ] as const) {
    l1.gate.set(unit, R.afterSep, steep);
    l1.gate.set(unit, R.constant, -shift);
    l1.up.set(unit, R.content, 1);
    l1.down.set(R.queryWord, unit, sign);
  }

  const l2 = new Layer(shape);
  l2.q.set(still(0), R.end, 1);
  l2.k.set(still(0), R.queryWord, 1);
  l2.k.set(still(1), R.constant, 0.1);
  // Weighting by the query-word flag (not a constant) keeps a query of only
  // stop words at "no overlap" instead of averaging junk positions.
  l2.v.set(0, R.queryWord, 0.5);
  l2.v.set(0, R.matchSink, -1);
  l2.o.set(R.score, 0, 1);
  l2.qNorm.fill(3);
  l2.kNorm.fill(3);

  const cls = new Matrix(N_EMBD, 2);
  cls.set(0, R.score, 31);
  cls.set(0, R.constant, -3);

  const meta = metadata("llm-wiki test reranker", vocab, shape, [
    // Ranking contexts force RANK pooling anyway; saying so avoids a llama.cpp warning.
    ["qwen3.pooling_type", { type: "u32", value: POOLING_RANK }],
    ["qwen3.classifier.output_labels", { type: "string[]", value: ["yes", "no"] }],
    ["tokenizer.chat_template.rerank", { type: "string", value: RERANK_TEMPLATE }],
  ]);
  return assemble(meta, emb, [l1, l2], [cls.tensor("cls.output.weight")]);
}

/**
 * Query-expansion generator. A bigram machine with attention and FFN off:
 * after any token it emits the single token "lex: -\n" (which satisfies QMD's
 * expansion grammar), after that token it emits end-of-text. QMD drops the
 * line (it shares no word with the query) and falls back to its own
 * expansion, so `expandQuery` costs two decoding steps.
 */
export function buildGenerateModel(): Buffer {
  const vocab = buildVocab({ words: false });
  const shape: Shape = { layers: 1, heads: 1, headDim: N_EMBD, ff: 8, ropeBase: 1e6 };
  const emb = new Matrix(N_EMBD, vocab.tokens.length);
  for (let id = 0; id < vocab.tokens.length; id++) emb.set(id, id === vocab.line ? 1 : 0, 8);
  const out = new Matrix(N_EMBD, vocab.tokens.length);
  out.set(vocab.line, 0, 10);
  out.set(vocab.eos, 1, 10);
  const meta = metadata("llm-wiki test generator", vocab, shape, []);
  return assemble(meta, emb, [new Layer(shape)], [out.tensor("output.weight")]);
}
