// bloomfilter: build, read and probe the PostgreSQL extension's filters bit
// for bit as the server does (src/core compiled to WebAssembly).
import { Bloom } from "./bloom.js";

export { Bloom, BloomInfo, Batch, Shape, optimal, hashValue, expectedFalsePositiveRate, FORMAT_VERSION, HASH_SCHEME_EDH, HASH_SCHEME_BLOCKED, FLAG_TEXT_UTF8 } from "./bloom.js";
export { CountingBloom, ScalableBloom } from "./others.js";
export { registerTypes } from "./pg.js";
export { BloomError } from "./errors.js";
export { Value, SqlType, Typed, Int2, Int4, Int8, Float4, Float8, Numeric, Bpchar, Uuid, Timestamp, PgDate, typed } from "./values.js";

/** bloom_empty(p, n) */
export function empty(p?: number, n?: number | bigint): Bloom {
  return Bloom.empty(p, n);
}

/** bloom_empty_mk(m, k) */
export function emptyMK(m: number | bigint, k: number): Bloom {
  return Bloom.emptyMK(m, k);
}

export const fromText = Bloom.fromText;
export const fromBinary = Bloom.fromBinary;
