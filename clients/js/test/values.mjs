// Random values of each SQL type, as pairs: the server's literal (cast from
// text in SQL) and the client's value.  A fixed seed, so a failure repeats.
import * as bf from "../dist/esm/index.js";

export function random(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  next.u64 = () => (BigInt(next.int(0, 0xffffffff)) << 32n) | BigInt(next.int(0, 0xffffffff));
  next.pick = (list) => list[Math.floor(next() * list.length)];
  return next;
}

const float8Text = (x) => (Object.is(x, -0) ? "-0" : String(x));
const hex = (bytes) => Buffer.from(bytes).toString("hex");
const EPOCH_US = 946684800000000n;

/** Microseconds since 2000-01-01 UTC as "YYYY-MM-DD HH:MM:SS.ffffff" (years 1..9999). */
export function formatMicros(micros) {
  const unix = micros + EPOCH_US;
  const ms = unix / 1000n - (unix % 1000n < 0n ? 1n : 0n);
  const sub = unix - ms * 1000n;
  const iso = new Date(Number(ms)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${String(sub).padStart(3, "0")}`;
}

const MIN_US = -63082281600000000n; // 0001-01-01
const MAX_US = 252455615999999999n; // 9999-12-31 23:59:59.999999
const ALPHABET = ["a", "b", "Z", "0", "9", " ", "_", "'", '"', "\\", ",", "{", "é", "ß", "Ω", "€", "中", "😀", "\t"];

function randomString(r, max) {
  let s = "";
  const n = r.int(0, max);
  for (let i = 0; i < n; i++) s += r() < 0.7 ? String.fromCharCode(r.int(0x21, 0x7e)) : r.pick(ALPHABET);
  return s;
}

function randomMicros(r) {
  return MIN_US + ((r.u64() % (MAX_US - MIN_US)) + (MAX_US - MIN_US)) % (MAX_US - MIN_US);
}

/** [literal, client value] for each type: the edge cases the issue names, then count random values. */
export const TYPES = {
  int2: (r) => [-32768, 32767, 0, 1, -1, 42].map((v) => [String(v), bf.Int2(v)]).concat(gen(r, () => { const v = r.int(-32768, 32767); return [String(v), bf.Int2(v)]; })),
  int4: (r) => [-2147483648, 2147483647, 0, 42].map((v) => [String(v), bf.Int4(v)]).concat(gen(r, () => { const v = r.int(-2147483648, 2147483647); return [String(v), bf.Int4(v)]; })),
  int8: (r) => [-(2n ** 63n), 2n ** 63n - 1n, 0n, 42n, 2n ** 53n + 1n].map((v) => [String(v), v]).concat(gen(r, () => { const v = BigInt.asIntN(64, r.u64()); return [String(v), v]; })),
  numeric: (r) => ["42", "42.000", "-42.0", "0", "0.000", "-0.0", "1.50", "NaN", "Infinity", "-Infinity", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1e3", "1.5E-3", "123456789012345678901234567890.123450"]
    .map((v) => [v, bf.Numeric(v)]).concat(gen(r, () => {
      const whole = String(r.int(0, 99999999)) + (r() < 0.3 ? String(r.int(0, 99999999999)) : "");
      const fraction = r() < 0.5 ? "" : "." + String(r.int(0, 999999)).padStart(r.int(1, 6), "0") + (r() < 0.3 ? "000" : "");
      const v = (r() < 0.5 ? "-" : "") + whole + fraction;
      return [v, bf.Numeric(v)];
    })),
  float4: (r) => [0, -0, NaN, Infinity, -Infinity, 1.401298464324817e-45, 3.4028234663852886e38, 0.1].map((v) => Math.fround(v)).map((v) => [float8Text(v), bf.Float4(v)])
    .concat(gen(r, () => { const v = Math.fround((r() - 0.5) * 10 ** r.int(-40, 38)); return [float8Text(v), bf.Float4(v)]; })),
  float8: (r) => [0, -0, NaN, Infinity, -Infinity, 5e-324, 1.7976931348623157e308, 0.1, 42].map((v) => [float8Text(v), bf.Float8(v)])
    .concat(gen(r, () => {
      const words = new Uint32Array([r.int(0, 0xffffffff), r.int(0, 0xffffffff)]);
      let v = new Float64Array(words.buffer)[0];
      if (r() < 0.5) v = (r() - 0.5) * 1e6;
      return [float8Text(v), bf.Float8(v)];
    })),
  text: (r) => ["", " ", "a", "a ", "héllo", "Ω", "😀", "日本語", "x".repeat(300)].map((v) => [v, v]).concat(gen(r, () => { const v = randomString(r, 24); return [v, v]; })),
  bpchar: (r) => ["", "  ", "ab", "ab  ", "é  ", " a"].map((v) => [v, bf.Bpchar(v)]).concat(gen(r, () => { const v = randomString(r, 12) + " ".repeat(r.int(0, 3)); return [v, bf.Bpchar(v)]; })),
  bytea: (r) => [[], [0], [0xde, 0xad, 0xbe, 0xef]].map((v) => ["\\x" + hex(v), new Uint8Array(v)]).concat(gen(r, () => {
    const v = Uint8Array.from({ length: r.int(0, 32) }, () => r.int(0, 255));
    return ["\\x" + hex(v), v];
  })),
  uuid: (r) => ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"].map((v) => [v, bf.Uuid(v)]).concat(gen(r, () => {
    const h = hex(Uint8Array.from({ length: 16 }, () => r.int(0, 255)));
    const v = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    return [r() < 0.5 ? v.toUpperCase() : v, bf.Uuid(v)];
  })),
  date: (r) => ["2000-01-01", "1999-12-31", "1970-01-01", "0001-01-01", "9999-12-31", "1900-02-28", "2024-02-29"].map((v) => [v, bf.PgDate(v)]).concat(gen(r, () => {
    const v = formatMicros((randomMicros(r) / 86400000000n) * 86400000000n).slice(0, 10);
    return [v, r() < 0.5 ? bf.PgDate(v) : bf.PgDate(new Date(v + "T00:00:00Z"))];
  })),
  timestamp: (r) => [0n, -1n, -946684800000000n, MIN_US, MAX_US].map((v) => [formatMicros(v), bf.Timestamp(v)]).concat(gen(r, () => {
    const v = randomMicros(r);
    return [formatMicros(v), bf.Timestamp(v)];
  })),
  // literals in several zones; the client has the instant (a Date, or microseconds)
  timestamptz: (r) => [["2000-01-01 00:00:00+00", 0n], ["2000-01-01 05:30:00+05:30", 0n], ["1999-12-31 19:00:00-05", 0n], ["1969-12-31 23:59:59.999999+00", -946684800000001n]]
    .map(([text, v]) => [text, bf.Timestamp(v)]).concat(gen(r, () => {
      const v = randomMicros(r) / 1000n * (r() < 0.5 ? 1000n : 1n);
      const offset = r.pick([0, 60, -300, 330, 345, -570, 840]);
      const local = formatMicros(v + BigInt(offset) * 60000000n);
      const zone = `${offset < 0 ? "-" : "+"}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")}:${String(Math.abs(offset) % 60).padStart(2, "0")}`;
      const value = v % 1000n === 0n && r() < 0.7 ? new Date(Number(v / 1000n) + 946684800000) : bf.Timestamp(v);
      return [local + zone, value];
    })),
  bool: (r) => [["true", true], ["false", false]].concat(gen(r, () => { const v = r() < 0.5; return [String(v), v]; })),
};

let count = 10000;
function gen(r, make) {
  return Array.from({ length: count }, make);
}
/** Values per type (10,000 by default). */
export function setCount(n) {
  count = n;
}
