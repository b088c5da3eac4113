// The bloom type: a filter whose bits live in the core's memory, with the
// SQL surface's operations (bloom_empty, bloom_add, bloom_contains,
// bloom_union, ... and the estimates) as methods.  Every operation on the
// bits is the core's; this file moves arguments and results.
import { alloc, core, copyIn, cString, heap, view, Scratch } from "./core.js";
import { BloomError } from "./errors.js";
import { ByteSink, SqlType, Typed, Value, encodeValue } from "./values.js";

export const FORMAT_VERSION = 1;
export const HASH_SCHEME_EDH = 1;
export const HASH_SCHEME_BLOCKED = 2;
/** Header flag: text was hashed as UTF-8 (set when non-ASCII text is added). */
export const FLAG_TEXT_UTF8 = 0x01;
const BINARY_HEADER_BYTES = 12;
const HEADER = 16; // sizeof(BloomHeader) in the module: 4 bytes, padding, m
const CHUNK = 16384;

if (core.js_header_size() !== HEADER) throw new Error("bloomfilter: unexpected BloomHeader layout in the WebAssembly core");
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const freed = new FinalizationRegistry<number>((ptr) => core.js_free(ptr));
const sink = new ByteSink();
const scratch = new Scratch();
const batchScratch = new Scratch();
const hashOut = new Scratch();

/** C's %g, as PostgreSQL's snprintf writes it (error details name p so). */
export function formatG(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const exponent = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(6)))));
  const strip = (digits: string) => (digits.includes(".") ? digits.replace(/\.?0+$/, "") : digits);
  if (exponent < -4 || exponent >= 6) {
    const [mantissa, e] = x.toExponential(5).split("e");
    const power = Number(e);
    return `${strip(mantissa)}e${power < 0 ? "-" : "+"}${String(Math.abs(power)).padStart(2, "0")}`;
  }
  return strip(x.toFixed(Math.max(0, 5 - exponent)));
}

const M_MAX = 8589934400;
/** PostgreSQL's MaxAllocSize: no text form reaches it. */
const MAX_ALLOC_BYTES = 0x3fffffff;
const MAX_VARLENA_BYTES = 1073741823;

/** The server's error for a shape that cannot be (bloom_raise_shape_error). */
function shapeError(status: number, operation: string, m: number, k: number, p: number, n: number): BloomError {
  switch (status) {
    case 1:
      return new BloomError(`${operation}: false_positive_rate must be greater than 0 and less than 1`, "22023", `false_positive_rate is ${formatG(p)}.`);
    case 2:
      return new BloomError(`${operation}: capacity must be at least 1`, "22023", `capacity is ${n}.`);
    case 3:
      return new BloomError(`${operation}: m must be at least 1`, "22023", `m is ${m}.`);
    case 4:
      return p >= 0
        ? new BloomError(`${operation}: false_positive_rate ${formatG(p)} needs more than 64 hash probes`, "22023", `The optimal number of probes is ${k}.`)
        : new BloomError(`${operation}: k must be between 1 and 64`, "22023", `k is ${k}.`);
    case 5:
      return new BloomError(
        `${operation}: bloom filter would exceed the maximum size`,
        "54000",
        `The filter needs m = ${m} bits; the maximum is m = ${M_MAX} bits (${MAX_VARLENA_BYTES} bytes, PostgreSQL's 1 GB value limit).`,
      );
    default:
      return statusError(status, `${operation}: no filter of this shape`, "22023");
  }
}

export interface Shape {
  m: number;
  k: number;
  /** The filter as a PostgreSQL value, 4-byte header included (bloom_optimal's bytes). */
  bytes: number;
  bitsPerItem: number;
  hashScheme: number;
}

/** bloom_optimal(p, n): the shape bloom_empty(p, n) and bloom_agg(v, p, n) give. */
export function optimal(p: number, n: number | bigint): Shape {
  return shapeFor("bloom_optimal", p, n);
}

function shapeFor(operation: string, p: number, n: number | bigint): Shape {
  if (typeof p !== "number") throw new BloomError(`${operation}: false_positive_rate must be a number`, "22023", `false_positive_rate is ${String(p)}.`);
  const count = Number(n);
  if (!Number.isSafeInteger(count))
    throw new BloomError(`${operation}: capacity must be an integer`, "22023", `capacity is ${String(n)}.`);
  const out = scratch.get(16);
  const status = core.js_default_shape(p, count, out);
  const dv = view();
  const m = Number(dv.getBigUint64(out, true));
  const k = dv.getUint32(out + 8, true);
  if (status !== 0) throw shapeError(status, operation, m, k, p, count);
  return { m, k, bytes: 16 + payloadBytes(m), bitsPerItem: m / count, hashScheme: dv.getUint8(out + 12) };
}

/** The 128-bit hash of a value (bloom_value's): h1 and h2, the low and high 64 bits of XXH3-128 of its canonical bytes. */
export function hashValue(value: Value): { h1: bigint; h2: bigint; utf8: boolean } {
  const [p, len, utf8] = encodeOne(value);
  const at = hashOut.get(16);
  core.js_hash(p, len, at);
  const dv = view();
  return { h1: dv.getBigUint64(at, true), h2: dv.getBigUint64(at + 8, true), utf8 };
}

/** The server's error for a status of the core: its detail sentence is the core's. */
export function statusError(status: number, message: string, code: string): BloomError {
  return new BloomError(message, code, cString(core.js_status_message(status)));
}

export function payloadBytes(m: number): number {
  return Math.ceil(m / 64) * 8;
}

/** A BloomHeader in the scratch space of the module. */
function headerIn(ptr: number, version: number, scheme: number, k: number, flags: number, m: number): number {
  const dv = view();
  dv.setUint8(ptr, version);
  dv.setUint8(ptr + 1, scheme);
  dv.setUint8(ptr + 2, k);
  dv.setUint8(ptr + 3, flags);
  dv.setBigUint64(ptr + 8, BigInt(m), true);
  return ptr;
}

export function readHeader(ptr: number): { version: number; scheme: number; k: number; flags: number; m: number } {
  const dv = view();
  return {
    version: dv.getUint8(ptr),
    scheme: dv.getUint8(ptr + 1),
    k: dv.getUint8(ptr + 2),
    flags: dv.getUint8(ptr + 3),
    m: Number(dv.getBigUint64(ptr + 8, true)),
  };
}

type Header = ReturnType<typeof readHeader>;
type Decoder = (data: number, len: number, header: number, out: number, out2: number) => number;

/** A text form through one of the core's decoders: its header and the array it allocated, or the server's error. */
export function decodeTextForm(text: unknown, type: string, decode: Decoder): { header: Header; array: number } {
  const message = `invalid input syntax for type ${type}`;
  if (typeof text !== "string") throw new BloomError(message, "22P02", "The text form is a string.");
  const bytes = new TextEncoder().encode(text);
  const p = copyIn(bytes);
  const header = scratch.get(HEADER + 8);
  try {
    const status = decode(p, bytes.length, header, header + HEADER, 0);
    if (status !== 0) throw statusError(status, message, "22P02");
    return { header: readHeader(header), array: view().getUint32(header + HEADER, true) };
  } finally {
    core.js_free(p);
  }
}

/**
 * A binary form through one of the core's decoders: its header, and the
 * array at offset in form, an allocation the caller owns (the input's
 * copy, or its expansion from the sparse form).
 */
export function decodeBinaryForm(data: unknown, type: string, decode: Decoder): { header: Header; form: number; offset: number } {
  const message = `invalid external binary representation for type ${type}`;
  if (!(data instanceof Uint8Array)) throw new BloomError(message, "22P03", "The binary form is a Uint8Array.");
  const p = copyIn(data);
  const header = scratch.get(HEADER + 8);
  const status = decode(p, data.length, header, header + HEADER, header + HEADER + 4);
  if (status !== 0) {
    core.js_free(p);
    throw statusError(status, message, "22P03");
  }
  const form = view().getUint32(header + HEADER, true);
  if (form !== p) core.js_free(p);
  return { header: readHeader(header), form, offset: view().getUint32(header + HEADER + 4, true) };
}

/** Encode one value into the module's scratch space: [pointer, length]. */
export function encodeOne(v: Value): [number, number, boolean] {
  sink.reset();
  encodeValue(sink, v);
  const p = scratch.get(sink.length + 1);
  heap().set(sink.bytes.subarray(0, sink.length), p);
  return [p, sink.length, sink.utf8];
}

/** What the batch forms take: a typed array names its SQL type; an array may name one. */
export type Batch = BigInt64Array | Int32Array | Int16Array | Float64Array | Float32Array | ArrayLike<unknown>;

type FixedKernel = (data: number, width: number, count: number, out: number) => void;
type VaryingKernel = (data: number, offsets: number, count: number, out: number) => void;

const textEncoder = new TextEncoder();
/** The byte offsets of a chunk's values, as the varying kernels take them. */
const chunkOffsets = new Uint32Array(CHUNK + 1);

/**
 * Room in the module's memory for a chunk of `total` bytes of values, their
 * offsets (copied there from chunkOffsets) and one result a value: the
 * data, offsets and results pointers.
 */
function chunkSpace(total: number, count: number): [number, number, number] {
  const data = batchScratch.get(total + 4 * (count + 1) + count + 8);
  const offsetsAt = (data + total + 3) & ~3;
  new Uint32Array(core.memory.buffer, offsetsAt, count + 1).set(chunkOffsets.subarray(0, count + 1));
  return [data, offsetsAt, offsetsAt + 4 * (count + 1)];
}

/**
 * Lay a chunk of strings out in the module's memory, when every one is
 * ASCII without NUL (the common case, where a string's UTF-8 bytes are its
 * characters): concatenated and encoded in one call, each value's offset
 * from the string lengths.  Returns chunkSpace's pointers, or null for any
 * other chunk, which then goes value by value (and raises the error, if
 * there is one).
 */
function asciiChunk(values: ArrayLike<unknown>, start: number, count: number): [number, number, number] | null {
  let joined = "";
  let total = 0;
  chunkOffsets[0] = 0;
  for (let i = 0; i < count; i++) {
    const v = values[start + i];
    if (typeof v !== "string") return null;
    joined += v;
    total += v.length;
    chunkOffsets[i + 1] = total;
  }
  if (joined.indexOf("\0") !== -1) return null;
  const space = chunkSpace(total, count);
  // a non-ASCII character takes more bytes than UTF-16 units: it does not fit
  const { read } = textEncoder.encodeInto(joined, heap().subarray(space[0], space[0] + total));
  return read === joined.length ? space : null;
}

/** Lay a chunk out value by value, through the encoders: chunkSpace's pointers. */
function encodedChunk(values: ArrayLike<unknown>, start: number, count: number, type: SqlType | undefined): [number, number, number] {
  sink.reset();
  chunkOffsets[0] = 0;
  for (let i = 0; i < count; i++) {
    const v = values[start + i];
    encodeValue(sink, type === undefined ? v : new Typed(type, v));
    chunkOffsets[i + 1] = sink.length;
  }
  const space = chunkSpace(sink.length, count);
  heap().set(sink.bytes.subarray(0, sink.length), space[0]);
  return space;
}

/**
 * Run a batch through the core: typed arrays as fixed-width canonical
 * bytes written straight into the module's memory, anything else value by
 * value into a buffer of variable-width bytes.  Returns whether any value
 * was non-ASCII text.
 */
export function runBatch(values: Batch, type: SqlType | undefined, fixed: FixedKernel, varying: VaryingKernel, results: Uint8Array | null): boolean {
  const n = values.length;
  if (LITTLE_ENDIAN && (values instanceof BigInt64Array || values instanceof Int32Array || values instanceof Int16Array || values instanceof Float64Array || values instanceof Float32Array)) {
    const isFloat = values instanceof Float64Array || values instanceof Float32Array;
    if (type !== undefined && type !== (isFloat ? (values instanceof Float32Array ? "float4" : "float8") : values instanceof BigInt64Array ? "int8" : values instanceof Int32Array ? "int4" : "int2"))
      throw new BloomError("batch type mismatch", "42804", `A ${values.constructor.name} holds values of its own type, not ${type}.`);
    for (let start = 0; start < n; start += CHUNK) {
      const count = Math.min(CHUNK, n - start);
      const data = batchScratch.get(count * 8 + count);
      const out = data + count * 8;
      if (values instanceof BigInt64Array) {
        new BigInt64Array(core.memory.buffer, data, count).set(values.subarray(start, start + count));
      } else if (isFloat) {
        const f = new Float64Array(core.memory.buffer, data, count);
        const words = new Uint32Array(core.memory.buffer, data, 2 * count);
        const src = values as Float64Array | Float32Array;
        for (let i = 0; i < count; i++) {
          const v = src[start + i];
          if (v !== v) {
            words[2 * i] = 0;
            words[2 * i + 1] = 0x7ff80000;
          } else f[i] = v === 0 ? 0 : v;
        }
      } else {
        const words = new Int32Array(core.memory.buffer, data, 2 * count);
        const src = values as Int32Array | Int16Array;
        for (let i = 0; i < count; i++) {
          const v = src[start + i];
          words[2 * i] = v;
          words[2 * i + 1] = v >> 31;
        }
      }
      fixed(data, 8, count, out);
      if (results) results.set(heap().subarray(out, out + count), start);
    }
    return false;
  }
  if (values instanceof Uint8Array)
    throw new BloomError("ambiguous batch", "42804", "A Uint8Array is one bytea value; pass an array of them to add many.");
  let utf8 = false;
  // until a chunk is not plain ASCII text: the rest of such a batch seldom is
  let ascii = type === undefined || type === "text";
  for (let start = 0; start < n; start += CHUNK) {
    const count = Math.min(CHUNK, n - start);
    let space = ascii ? asciiChunk(values, start, count) : null;
    if (space === null) {
      ascii = false;
      space = encodedChunk(values, start, count, type);
      utf8 ||= sink.utf8;
    }
    const [data, offsetsAt, out] = space;
    varying(data, offsetsAt, count, out);
    if (results) results.set(heap().subarray(out, out + count), start);
  }
  return utf8;
}

export interface BloomInfo {
  m: number;
  k: number;
  hashScheme: number;
  flags: number;
  /** The filter's size as a PostgreSQL value (4-byte header), as bloom_info's bytes. */
  bytes: number;
  bitsSet: number;
  fillRatio: number;
  estimatedCardinality: number;
  falsePositiveRate: number;
}

export class Bloom {
  /** Bits of the filter, in the core's memory (freed with the object, or by free()). */
  private ptr: number;
  readonly m: number;
  readonly k: number;
  readonly hashScheme: number;
  flags: number;
  readonly nbytes: number;

  private constructor(m: number, k: number, scheme: number, flags: number, ptr?: number) {
    this.m = m;
    this.k = k;
    this.hashScheme = scheme;
    this.flags = flags;
    this.nbytes = payloadBytes(m);
    this.ptr = ptr ?? alloc(this.nbytes + 8, true);
    freed.register(this, this.ptr, this);
  }

  /** bloom_empty(p, n): the server's shape for n values at rate p, its hash scheme included. */
  static empty(p = 0.01, n: number | bigint = 10000): Bloom {
    const shape = shapeFor("bloom_empty", p, n);
    return new Bloom(shape.m, shape.k, shape.hashScheme, 0);
  }

  /** bloom_empty_mk(m, k): an explicit shape, under hash scheme 1. */
  static emptyMK(m: number | bigint, k: number): Bloom {
    const bits = Number(m);
    if (!Number.isSafeInteger(bits) || !Number.isInteger(k))
      throw new BloomError("bloom_empty_mk: m and k must be integers", "22023", `m is ${String(m)}, k is ${String(k)}.`);
    const status = core.js_check_shape(bits, Math.min(Math.max(k, -1), 1000));
    if (status !== 0) throw shapeError(status, "bloom_empty_mk", bits, k, -1, -1);
    return new Bloom(bits, k, HASH_SCHEME_EDH, 0);
  }

  /** The text form (bloom_in), checked as the server checks it. */
  static fromText(text: string): Bloom {
    const { header: h, array } = decodeTextForm(text, "bloom", core.js_text_decode);
    return new Bloom(h.m, h.k, h.scheme, h.flags, array);
  }

  /** The binary form (bloom_recv): header, m big-endian, the bits. */
  static fromBinary(data: Uint8Array): Bloom {
    const { header: h, form, offset } = decodeBinaryForm(data, "bloom", core.js_binary_decode);
    const filter = new Bloom(h.m, h.k, h.scheme, h.flags);
    heap().copyWithin(filter.ptr, form + offset, form + offset + filter.nbytes);
    core.js_free(form);
    return filter;
  }

  private headerPtr(): number {
    return headerIn(scratch.get(HEADER), FORMAT_VERSION, this.hashScheme, this.k, this.flags, this.m);
  }

  /** bloom_out's text; refused, as the server refuses it, past PostgreSQL's 1 GB value limit. */
  toText(): string {
    const length = core.js_text_length(this.headerPtr());
    if (length >= MAX_ALLOC_BYTES) {
      // the largest m whose text form fits, for the server's detail
      let low = 1, high = this.m;
      while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        if (core.js_text_length(headerIn(scratch.get(HEADER), FORMAT_VERSION, this.hashScheme, this.k, this.flags, mid)) < MAX_ALLOC_BYTES) low = mid;
        else high = mid - 1;
      }
      throw new BloomError("bloom filter is too large for text output", "54000",
        `The text form of a filter of m = ${this.m} bits would take ${length} bytes; the largest filter with a text form has m = ${low} bits.`);
    }
    const out = alloc(length + 1);
    try {
      core.js_text_encode(this.headerPtr(), this.ptr, out);
      return new TextDecoder().decode(heap().subarray(out, out + length));
    } finally {
      core.js_free(out);
    }
  }

  toString(): string {
    return this.toText();
  }

  /** bloom_send's bytes. */
  toBinary(): Uint8Array {
    const out = new Uint8Array(BINARY_HEADER_BYTES + this.nbytes);
    const p = scratch.get(BINARY_HEADER_BYTES + HEADER);
    const header = headerIn(p + BINARY_HEADER_BYTES, FORMAT_VERSION, this.hashScheme, this.k, this.flags, this.m);
    core.js_binary_encode_header(header, p);
    out.set(heap().subarray(p, p + BINARY_HEADER_BYTES));
    out.set(this.bits(), BINARY_HEADER_BYTES);
    return out;
  }

  /** A copy of the bit array (bit i in byte i / 8 under mask 1 << (i % 8)). */
  bits(): Uint8Array {
    this.check();
    return heap().slice(this.ptr, this.ptr + this.nbytes);
  }

  /** Add a value (bloom_add); returns the filter. */
  add(value: Value): this {
    this.check();
    const [p, len, utf8] = encodeOne(value);
    if (utf8) this.flags |= FLAG_TEXT_UTF8;
    core.js_add(this.ptr, this.m, this.k, this.hashScheme, p, len);
    return this;
  }

  /** Whether the value may have been added (bloom_contains): false means certainly not. */
  contains(value: Value): boolean {
    this.check();
    const [p, len] = encodeOne(value);
    return core.js_contains(this.ptr, this.m, this.k, this.hashScheme, p, len) !== 0;
  }

  /**
   * Add many values: a BigInt64Array (int8), Int32Array (int4), Int16Array
   * (int2), Float64Array (float8) or Float32Array (float4), or an array of
   * values, with the SQL type of its numbers named (addAll([1, 2], "int8")).
   */
  addAll(values: Batch, type?: SqlType): this {
    this.check();
    const { ptr, m, k, hashScheme } = this;
    const utf8 = runBatch(
      values,
      type,
      (data, width, count) => core.js_add_fixed(ptr, m, k, hashScheme, data, width, count),
      (data, offsets, count) => core.js_add_varying(ptr, m, k, hashScheme, data, offsets, count),
      null,
    );
    if (utf8) this.flags |= FLAG_TEXT_UTF8;
    return this;
  }

  /** contains for many values, as addAll takes them: one answer a value. */
  containsAll(values: Batch, type?: SqlType): boolean[] {
    this.check();
    const { ptr, m, k, hashScheme } = this;
    const results = new Uint8Array(values.length);
    runBatch(
      values,
      type,
      (data, width, count, out) => core.js_contains_fixed(ptr, m, k, hashScheme, data, width, count, out),
      (data, offsets, count, out) => core.js_contains_varying(ptr, m, k, hashScheme, data, offsets, count, out),
      results,
    );
    const answers: boolean[] = new Array(results.length);
    for (let i = 0; i < results.length; i++) answers[i] = results[i] !== 0;
    return answers;
  }

  private requireSameShape(operation: string, other: Bloom): void {
    this.check();
    other.check();
    if (!(other instanceof Bloom) || other.m !== this.m || other.k !== this.k || other.hashScheme !== this.hashScheme)
      throw new BloomError(
        `${operation}: bloom filters have different shapes`,
        "22023",
        `m ${this.m}, k ${this.k}, hash scheme ${this.hashScheme} against m ${other.m}, k ${other.k}, hash scheme ${other.hashScheme}.`,
      );
  }

  private combine(operation: string, other: Bloom, kernel: (d: number, a: number, b: number, n: number) => void): Bloom {
    this.requireSameShape(operation, other);
    const result = new Bloom(this.m, this.k, this.hashScheme, this.flags | other.flags);
    kernel(result.ptr, this.ptr, other.ptr, this.nbytes);
    return result;
  }

  /** bloom_union: a new filter of the values of either. */
  union(other: Bloom): Bloom {
    return this.combine("bloom_union", other, (d, a, b, n) => core.js_or(d, a, b, n));
  }

  /** bloom_intersection: a new filter of the bits both have set. */
  intersection(other: Bloom): Bloom {
    return this.combine("bloom_intersection", other, (d, a, b, n) => core.js_and(d, a, b, n));
  }

  /** The = of the server: same m, k, hash scheme and bits. */
  equals(other: Bloom): boolean {
    this.check();
    if (!(other instanceof Bloom) || other.m !== this.m || other.k !== this.k || other.hashScheme !== this.hashScheme) return false;
    other.check();
    const h = heap();
    const a = h.subarray(this.ptr, this.ptr + this.nbytes);
    const b = h.subarray(other.ptr, other.ptr + other.nbytes);
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  /** bits set, X */
  bitsSet(): number {
    this.check();
    return core.js_popcount(this.ptr, this.nbytes);
  }

  /** bloom_cardinality: Swamidass–Baldi, +Infinity when saturated. */
  cardinality(): number {
    return core.js_cardinality(this.m, this.k, this.hashScheme, this.bitsSet());
  }

  /** bloom_union_cardinality */
  unionCardinality(other: Bloom): number {
    this.requireSameShape("bloom_union_cardinality", other);
    return core.js_cardinality(this.m, this.k, this.hashScheme, core.js_popcount_or(this.ptr, other.ptr, this.nbytes));
  }

  /** bloom_intersection_cardinality: n(A) + n(B) - n(A ∪ B), at least 0; NaN when the union is saturated. */
  intersectionCardinality(other: Bloom): number {
    return this.intersectionAndUnion("bloom_intersection_cardinality", other)[0];
  }

  /** bloom_jaccard */
  jaccard(other: Bloom): number {
    const [intersection, union] = this.intersectionAndUnion("bloom_jaccard", other);
    if (Number.isNaN(intersection)) return intersection;
    return union === 0 ? 1 : intersection / union;
  }

  private intersectionAndUnion(operation: string, other: Bloom): [number, number] {
    this.requireSameShape(operation, other);
    const unionBits = core.js_popcount_or(this.ptr, other.ptr, this.nbytes);
    const union = core.js_cardinality(this.m, this.k, this.hashScheme, unionBits);
    if (unionBits === this.m) return [NaN, union];
    return [Math.max(0, this.cardinality() + other.cardinality() - union), union];
  }

  /** The expected false-positive rate of the filter as it is (bloom_info's). */
  falsePositiveRate(): number {
    this.check();
    return core.js_false_positive_rate(this.ptr, this.m, this.k, this.hashScheme, this.bitsSet());
  }

  /** bloom_info */
  info(): BloomInfo {
    const bitsSet = this.bitsSet();
    return {
      m: this.m,
      k: this.k,
      hashScheme: this.hashScheme,
      flags: this.flags,
      bytes: 16 + this.nbytes,
      bitsSet,
      fillRatio: bitsSet / this.m,
      estimatedCardinality: core.js_cardinality(this.m, this.k, this.hashScheme, bitsSet),
      falsePositiveRate: core.js_false_positive_rate(this.ptr, this.m, this.k, this.hashScheme, bitsSet),
    };
  }

  /** A copy (the core's memory is not shared between filters). */
  clone(): Bloom {
    this.check();
    const copy = new Bloom(this.m, this.k, this.hashScheme, this.flags);
    heap().copyWithin(copy.ptr, this.ptr, this.ptr + this.nbytes);
    return copy;
  }

  /** Give the bits' memory back now, rather than when the object is collected. */
  free(): void {
    if (this.ptr) {
      freed.unregister(this);
      core.js_free(this.ptr);
      this.ptr = 0;
    }
  }

  private check(): void {
    if (this.ptr === 0) throw new BloomError("the filter was freed", "55000", "free() gave its memory back; it cannot be used again.");
  }
}

/** The expected false-positive rate after n distinct values in a filter of m bits and k probes. */
export function expectedFalsePositiveRate(m: number, k: number, n: number): number {
  return core.js_expected_false_positive_rate(m, k, n);
}

// node-postgres sends an object with toPostgres() as the text it returns
// (the server reads it with bloom_in); filter.toBinary() as a parameter is
// sent in the binary form instead.
export interface Bloom {
  toPostgres(): string;
}
Bloom.prototype.toPostgres = function (this: Bloom): string {
  return this.toText();
};
