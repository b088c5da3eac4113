// Values to their canonical bytes: the one part of hashing written in
// TypeScript.  The bytes are the server's (src/encoding/encoding.c, and
// doc/reference.md "Value encodings"); the hash and the probes are the
// core's.  A JavaScript number is refused unless its SQL type is named
// (Int8(42), Float8(42)): 42::int8 and 42::float8 hash differently, and
// nothing here guesses which one was meant.
import { BloomError } from "./errors.js";

/** A value whose SQL type is named explicitly. */
export class Typed {
  constructor(readonly type: SqlType, readonly value: unknown) {}
}

/** The SQL types a value can be named as. */
export type SqlType =
  | "int2" | "int4" | "int8" | "numeric" | "float4" | "float8"
  | "text" | "bpchar" | "bytea" | "uuid" | "timestamp" | "timestamptz" | "date" | "boolean";

/** What add and contains accept. */
export type Value = bigint | string | Uint8Array | Date | boolean | Typed;

export const Int2 = (v: number | bigint) => new Typed("int2", v);
export const Int4 = (v: number | bigint) => new Typed("int4", v);
export const Int8 = (v: number | bigint) => new Typed("int8", v);
export const Float4 = (v: number) => new Typed("float4", v);
export const Float8 = (v: number) => new Typed("float8", v);
/** A numeric in its decimal text ("42.000", "1.5e3", "NaN"), or a bigint. */
export const Numeric = (v: string | bigint) => new Typed("numeric", v);
/** A bpchar: hashed without its trailing spaces, as PostgreSQL compares it. */
export const Bpchar = (v: string) => new Typed("bpchar", v);
export const Uuid = (v: string | Uint8Array) => new Typed("uuid", v);
/** A timestamp or timestamptz as a Date, or as microseconds since 2000-01-01 UTC. */
export const Timestamp = (v: Date | bigint) => new Typed("timestamp", v);
/** A date, as "YYYY-MM-DD" or a Date at UTC midnight: hashed as its midnight's timestamp. */
export const PgDate = (v: string | Date) => new Typed("date", v);

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
/** Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch. */
const POSTGRES_EPOCH_MS = 946684800000;
/** 4714-11-24 BC, the first instant PostgreSQL's timestamps hold. */
const TIMESTAMP_MIN_US = -211813488000000000n;
const TIMESTAMP_END_US = 9223371331200000000n;
const CANONICAL_NAN_HIGH = 0x7ff80000;

function invalid(message: string, detail: string, code = "22023"): BloomError {
  return new BloomError(message, code, detail);
}

/**
 * A growable byte buffer the encoders write into.  `utf8` is set when a
 * value's bytes are text that is not all ASCII: the filter then gets the
 * header flag the server sets for it (BLOOM_FLAG_TEXT_UTF8).
 */
export class ByteSink {
  bytes = new Uint8Array(256);
  data = new DataView(this.bytes.buffer);
  length = 0;
  utf8 = false;

  reset(): void {
    this.length = 0;
    this.utf8 = false;
  }

  reserve(n: number): void {
    const need = this.length + n;
    if (need <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(need, 2 * this.bytes.length));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.data = new DataView(grown.buffer);
  }

  int64(v: bigint): void {
    this.reserve(8);
    this.data.setBigInt64(this.length, v, true);
    this.length += 8;
  }

  /** An integer that is a safe JavaScript integer, as int64, without a bigint. */
  int64FromNumber(v: number): void {
    this.reserve(8);
    const low = v % 0x100000000;
    const high = Math.floor(v / 0x100000000);
    this.data.setUint32(this.length, low >>> 0, true);
    this.data.setInt32(this.length + 4, high | 0, true);
    this.length += 8;
  }

  float8(v: number): void {
    this.reserve(8);
    if (Number.isNaN(v)) {
      this.data.setUint32(this.length, 0, true);
      this.data.setUint32(this.length + 4, CANONICAL_NAN_HIGH, true);
    } else {
      this.data.setFloat64(this.length, v === 0 ? 0 : v, true);
    }
    this.length += 8;
  }

  raw(b: Uint8Array): void {
    this.reserve(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }

  /** A string as UTF-8; a lone surrogate or a NUL has no PostgreSQL text form. */
  text(s: string, end = s.length): void {
    this.reserve(3 * end);
    const out = this.bytes;
    let pos = this.length;
    let high = 0;
    for (let i = 0; i < end; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        if (c === 0) throw invalid("invalid text value", "PostgreSQL text cannot contain the character NUL (0x00).", "22021");
        out[pos++] = c;
        continue;
      }
      high = 1;
      if (c < 0x800) {
        out[pos++] = 0xc0 | (c >> 6);
        out[pos++] = 0x80 | (c & 63);
      } else if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < end ? s.charCodeAt(i + 1) : 0;
        if (c > 0xdbff || d < 0xdc00 || d > 0xdfff)
          throw invalid("invalid text value", "The string has a lone surrogate, which has no UTF-8 form.", "22021");
        i++;
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        out[pos++] = 0xf0 | (c >> 18);
        out[pos++] = 0x80 | ((c >> 12) & 63);
        out[pos++] = 0x80 | ((c >> 6) & 63);
        out[pos++] = 0x80 | (c & 63);
      } else {
        out[pos++] = 0xe0 | (c >> 12);
        out[pos++] = 0x80 | ((c >> 6) & 63);
        out[pos++] = 0x80 | (c & 63);
      }
    }
    this.length = pos;
    if (high) this.utf8 = true;
  }
}

function checkInt64(v: bigint, type: SqlType): bigint {
  if (v < INT64_MIN || v > INT64_MAX)
    throw invalid(`value out of range for type ${type}`, `${v} is outside the 64-bit integer range.`, "22003");
  return v;
}

const INTEGER_LIMITS: Record<string, [number, number]> = {
  int2: [-32768, 32767],
  int4: [-2147483648, 2147483647],
};

function encodeInteger(sink: ByteSink, type: SqlType, v: unknown): void {
  if (typeof v === "bigint") {
    const limits = INTEGER_LIMITS[type];
    if (limits && (v < BigInt(limits[0]) || v > BigInt(limits[1])))
      throw invalid(`value out of range for type ${type}`, `${v} is outside ${type}'s range.`, "22003");
    sink.int64(checkInt64(v, type));
    return;
  }
  if (typeof v !== "number" || !Number.isInteger(v))
    throw invalid(`invalid ${type} value`, `${String(v)} is not an integer.`, "22P02");
  const limits = INTEGER_LIMITS[type];
  if (limits && (v < limits[0] || v > limits[1]))
    throw invalid(`value out of range for type ${type}`, `${v} is outside ${type}'s range.`, "22003");
  if (!Number.isSafeInteger(v))
    throw invalid(`invalid ${type} value`, `${v} is beyond 2^53, where a JavaScript number may already be rounded; pass a bigint.`, "22003");
  sink.int64FromNumber(v);
}

const NUMERIC_SYNTAX = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;
const NUMERIC_SPECIAL: Record<string, string> = {
  nan: "NaN", "+nan": "NaN", "-nan": "NaN",
  infinity: "Infinity", "+infinity": "Infinity", inf: "Infinity", "+inf": "Infinity",
  "-infinity": "-Infinity", "-inf": "-Infinity",
};

/**
 * A numeric's text as numeric_normalize() gives it (no exponent, no
 * trailing fractional zeros), then hashed as the server does: an integral
 * value within int64 range as int8, anything else as that text.
 */
function encodeNumeric(sink: ByteSink, v: unknown): void {
  if (typeof v === "bigint") {
    if (v >= INT64_MIN && v <= INT64_MAX) sink.int64(v);
    else sink.text(v.toString());
    return;
  }
  if (typeof v !== "string")
    throw invalid("invalid numeric value", "A numeric is given as its decimal text or as a bigint.", "22P02");
  const special = NUMERIC_SPECIAL[v.trim().toLowerCase()];
  if (special !== undefined) {
    sink.text(special);
    return;
  }
  const match = NUMERIC_SYNTAX.exec(v);
  if (!match || (match[2] === "" && (match[3] ?? "") === ""))
    throw invalid("invalid numeric value", `"${v}" is not a number.`, "22P02");
  const [, sign, whole, fraction = "", exponentText = "0"] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 200000)
    throw invalid("value out of range for type numeric", `"${v}" has an exponent beyond numeric's range.`, "22003");
  // the significant digits, and how many of them come before the point
  const all = whole + fraction;
  const lead = all.length - all.replace(/^0+/, "").length;
  let digits = all.slice(lead);
  const point = whole.length + exponent - lead;
  while (digits.length > Math.max(point, 0) && digits.endsWith("0")) digits = digits.slice(0, -1);
  if (digits === "") {
    sink.int64(0n);
    return;
  }
  let text: string;
  if (point >= digits.length) text = digits + "0".repeat(point - digits.length);
  else if (point <= 0) text = "0." + "0".repeat(-point) + digits;
  else text = digits.slice(0, point) + "." + digits.slice(point);
  if (sign === "-") text = "-" + text;
  if (!text.includes(".")) {
    const integer = BigInt(text);
    if (integer >= INT64_MIN && integer <= INT64_MAX) {
      sink.int64(integer);
      return;
    }
  }
  sink.text(text);
}

function timestampMicros(v: unknown, type: SqlType): bigint {
  let micros: bigint;
  if (typeof v === "bigint") micros = v;
  else if (v instanceof Date) {
    const ms = v.getTime();
    if (Number.isNaN(ms)) throw invalid(`invalid ${type} value`, "The Date is invalid (its time is NaN).", "22007");
    micros = BigInt(ms - POSTGRES_EPOCH_MS) * 1000n;
  } else throw invalid(`invalid ${type} value`, "A timestamp is given as a Date or as microseconds since 2000-01-01 (a bigint).", "22007");
  if (micros < TIMESTAMP_MIN_US || micros >= TIMESTAMP_END_US)
    throw invalid(`${type} out of range`, "PostgreSQL's timestamps run from 4714-11-24 BC to 294276 AD.", "22008");
  return micros;
}

const DATE_SYNTAX = /^(\d{4,})-(\d{2})-(\d{2})$/;

function dateMicros(v: unknown): bigint {
  if (v instanceof Date) {
    if (v.getTime() % 86400000 !== 0)
      throw invalid("invalid date value", "A Date names a date only at UTC midnight.", "22007");
    return timestampMicros(v, "date");
  }
  const match = typeof v === "string" ? DATE_SYNTAX.exec(v) : null;
  if (!match) throw invalid("invalid date value", "A date is given as YYYY-MM-DD or as a Date at UTC midnight.", "22007");
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  const back = new Date(ms);
  if (Number.isNaN(ms) || back.getUTCDate() !== Number(match[3]) || back.getUTCMonth() !== Number(match[2]) - 1)
    throw invalid("invalid date value", `"${v}" is not a date.`, "22008");
  // Date.UTC maps years 0..99 to 1900..1999
  const fixed = new Date(ms);
  fixed.setUTCFullYear(Number(match[1]));
  return timestampMicros(fixed, "date");
}

const UUID_SYNTAX = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

function encodeUuid(sink: ByteSink, v: unknown): void {
  if (v instanceof Uint8Array) {
    if (v.length !== 16) throw invalid("invalid uuid value", "A uuid is 16 bytes.", "22P02");
    sink.raw(v);
    return;
  }
  const match = typeof v === "string" ? UUID_SYNTAX.exec(v) : null;
  if (!match) throw invalid("invalid input syntax for type uuid", `"${String(v)}" is not a uuid.`, "22P02");
  const hex = match.slice(1).join("");
  sink.reserve(16);
  for (let i = 0; i < 16; i++) sink.bytes[sink.length + i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  sink.length += 16;
}

function encodeTyped(sink: ByteSink, typed: Typed): void {
  const v = typed.value;
  switch (typed.type) {
    case "int2":
    case "int4":
    case "int8":
      return encodeInteger(sink, typed.type, v);
    case "numeric":
      return encodeNumeric(sink, v);
    case "float4":
    case "float8":
      if (typeof v !== "number") throw invalid(`invalid ${typed.type} value`, `${String(v)} is not a number.`, "22P02");
      return sink.float8(typed.type === "float4" ? Math.fround(v) : v);
    case "text":
      if (typeof v !== "string") throw invalid("invalid text value", "A text value is a string.", "22P02");
      return sink.text(v);
    case "bpchar": {
      if (typeof v !== "string") throw invalid("invalid bpchar value", "A bpchar value is a string.", "22P02");
      let end = v.length;
      while (end > 0 && v.charCodeAt(end - 1) === 32) end--;
      return sink.text(v, end);
    }
    case "bytea":
      if (!(v instanceof Uint8Array)) throw invalid("invalid bytea value", "A bytea value is a Uint8Array.", "22P02");
      return sink.raw(v);
    case "uuid":
      return encodeUuid(sink, v);
    case "timestamp":
    case "timestamptz":
      return sink.int64(timestampMicros(v, typed.type));
    case "date":
      return sink.int64(dateMicros(v));
    case "boolean":
      if (typeof v !== "boolean") throw invalid("invalid boolean value", "A boolean value is true or false.", "22P02");
      sink.raw(v ? ONE : ZERO);
      return;
    default:
      throw invalid("unsupported type", `bloomfilter's client does not encode values of type ${String(typed.type)}.`, "0A000");
  }
}

const ZERO = new Uint8Array([0]);
const ONE = new Uint8Array([1]);

/** Append a value's canonical bytes to the sink. */
export function encodeValue(sink: ByteSink, v: unknown): void {
  switch (typeof v) {
    case "string":
      return sink.text(v);
    case "bigint":
      return sink.int64(checkInt64(v, "int8"));
    case "boolean":
      sink.raw(v ? ONE : ZERO);
      return;
    case "number":
      throw invalid(
        "ambiguous number",
        `The JavaScript number ${v} could be an integer or a float, which hash differently; name its type: Int8(${v}), Float8(${v}), or pass a bigint.`,
        "42804",
      );
  }
  if (v instanceof Uint8Array) return sink.raw(v);
  if (v instanceof Date) return sink.int64(timestampMicros(v, "timestamptz"));
  if (v instanceof Typed) return encodeTyped(sink, v);
  throw invalid("unsupported value", `bloomfilter's client does not encode ${v === null ? "null" : typeof v} values.`, "0A000");
}

/** Name the type of an array of plain values (numbers need one). */
export function typed(type: SqlType, v: unknown): Value {
  return new Typed(type, v);
}
