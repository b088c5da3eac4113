// The client's speed: batch and single add and contains for int8 and for
// 16-byte text, beside npm's bloom-filters (the most used pure-JavaScript
// filter) and a JavaScript Set as a reference.  Medians of BENCH_JS_RUNS
// runs (default 5) of N values (BENCH_JS_N, default 1,000,000); the
// slower libraries run on a tenth as many values, rates are per second.
import { createRequire } from "node:module";
import * as bf from "../dist/esm/index.js";

const require = createRequire(import.meta.url);
const { BloomFilter } = require("bloom-filters");
const RUNS = Number(process.env.BENCH_JS_RUNS ?? 5);
const N = Number(process.env.BENCH_JS_N ?? 1000000);
const P = 0.01;

let state = 12345;
const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
const int8s = BigInt64Array.from({ length: N }, () => (BigInt(next()) << 32n) | BigInt(next()));
const int8Probes = BigInt64Array.from({ length: N }, (_, i) => (i % 2 ? int8s[i] : (BigInt(next()) << 32n) | BigInt(next())));
const CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const word = () => Array.from({ length: 16 }, () => CHARS[next() % CHARS.length]).join("");
const texts = Array.from({ length: N }, word);
const textProbes = texts.map((t, i) => (i % 2 ? t : word()));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Values a second, the median of RUNS runs of setup() then run(state) over count values. */
function rate(count, setup, run) {
  const rates = [];
  for (let i = 0; i < RUNS; i++) {
    const s = setup();
    const t = process.hrtime.bigint();
    run(s);
    rates.push(count / (Number(process.hrtime.bigint() - t) / 1e9));
  }
  return median(rates);
}

const rows = [];
const row = (what, library, perSecond) => rows.push([what, library, perSecond]);
const small = Math.max(1, Math.floor(N / 10));

for (const [kind, values, probes, typed] of [
  ["int8", int8s, int8Probes, true],
  ["text (16 bytes)", texts, textProbes, false],
]) {
  row(`${kind} batch add`, "pg-bloomfilter addAll", rate(N, () => bf.empty(P, N), (f) => f.addAll(values)));
  const full = bf.empty(P, N).addAll(values);
  row(`${kind} batch contains`, "pg-bloomfilter containsAll", rate(N, () => full, (f) => f.containsAll(probes)));
  row(`${kind} single add`, "pg-bloomfilter add", rate(small, () => bf.empty(P, N), (f) => { for (let i = 0; i < small; i++) f.add(values[i]); }));
  row(`${kind} single contains`, "pg-bloomfilter contains", rate(small, () => full, (f) => { let n = 0; for (let i = 0; i < small; i++) n += f.contains(probes[i]) ? 1 : 0; return n; }));
  // bloom-filters hashes strings (or byte buffers): int8 goes in as its decimal text
  const keys = typed ? Array.from(values.subarray(0, small), String) : values.slice(0, small);
  const keyProbes = typed ? Array.from(probes.subarray(0, small), String) : probes.slice(0, small);
  row(`${kind} single add`, "bloom-filters add", rate(small, () => BloomFilter.create(N, P), (f) => { for (const k of keys) f.add(k); }));
  const theirs = BloomFilter.create(N, P);
  for (const k of keys) theirs.add(k);
  row(`${kind} single contains`, "bloom-filters has", rate(small, () => theirs, (f) => { let n = 0; for (const k of keyProbes) n += f.has(k) ? 1 : 0; return n; }));
  row(`${kind} add`, "Set (reference, exact)", rate(N, () => new Set(), (s) => { for (let i = 0; i < N; i++) s.add(values[i]); }));
  const set = new Set(values);
  row(`${kind} contains`, "Set (reference, exact)", rate(N, () => set, (s) => { let n = 0; for (let i = 0; i < N; i++) n += s.has(probes[i]) ? 1 : 0; return n; }));
}

console.log(`JavaScript client: ${process.version}, ${N.toLocaleString("en")} values (${small.toLocaleString("en")} for single calls and bloom-filters), p = ${P}, median of ${RUNS} runs`);
for (const [what, library, perSecond] of rows)
  console.log(`${what.padEnd(28)} ${library.padEnd(28)} ${(perSecond / 1e6).toFixed(2).padStart(8)} M/s`);
