// The parameter case through node-postgres: a 10,000,000-row table
// (bench_client_rows, made here unless clients/python/bench.py made it)
// and an application set of 1,000,000 ids, half of them in the table.
// WHERE bloom_contains($1, id) with the client's filter (its binary form,
// and its text form) against WHERE id = ANY($1::int8[]) (node-postgres
// sends an array as its text literal): bytes sent and query time, medians
// of BENCH_JS_RUNS (5) rounds.  Needs a server (PGHOST etc.).
import pg from "pg";
import * as bf from "../dist/esm/index.js";

const RUNS = Number(process.env.BENCH_JS_RUNS ?? 5);
const ROWS = 10_000_000;
const IDS = 1_000_000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const client = new pg.Client();
await client.connect();
await client.query("SET client_min_messages = warning");
await client.query("CREATE EXTENSION IF NOT EXISTS bloomfilter");
await bf.registerTypes(client);
const exists = await client.query("SELECT to_regclass('bench_client_rows') IS NOT NULL AS yes");
if (!exists.rows[0].yes) {
  const t = performance.now();
  await client.query(`CREATE TABLE bench_client_rows AS SELECT i::int8 AS id FROM generate_series(1, ${ROWS}) i`);
  await client.query("VACUUM ANALYZE bench_client_rows");
  console.log(`  (created bench_client_rows, ${ROWS.toLocaleString("en")} rows, in ${((performance.now() - t) / 1000).toFixed(0)}s)`);
}

// half of the ids in the table, half beyond it; distinct
let state = 7;
const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
const chosen = new Set();
while (chosen.size < IDS / 2) chosen.add(1 + ((next() * 4096 + (next() & 4095)) % ROWS));
while (chosen.size < IDS) chosen.add(ROWS + 1 + ((next() * 4096 + (next() & 4095)) % (3 * ROWS)));
const ids = BigInt64Array.from(chosen, BigInt);

let t = performance.now();
const filter = bf.empty(0.01, IDS).addAll(ids);
const buildMs = performance.now() - t;
const binary = filter.toBinary();
const text = filter.toPostgres();
const literal = `{${Array.from(ids).join(",")}}`;

async function timed(query, param) {
  const times = [];
  let rows;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const result = await client.query(query, [param]);
    times.push(performance.now() - start);
    rows = Number(result.rows[0].count);
  }
  return [median(times), rows];
}

const cases = [
  ["WHERE bloom_contains($1, id) (binary filter)", "SELECT count(*) FROM bench_client_rows WHERE bloom_contains($1::bloom, id)", binary, binary.length],
  ["WHERE bloom_contains($1, id) (text filter)", "SELECT count(*) FROM bench_client_rows WHERE bloom_contains($1::bloom, id)", filter, Buffer.byteLength(text)],
  ["WHERE id = ANY($1::int8[]) (text array)", "SELECT count(*) FROM bench_client_rows WHERE id = ANY($1::int8[])", literal, Buffer.byteLength(literal)],
];
const results = [];
for (const [name, query, param, bytes] of cases) results.push([name, bytes, ...(await timed(query, param))]);
await client.end();

console.log(`parameter case through node-postgres ${process.version}: ${ROWS.toLocaleString("en")}-row table, ${IDS.toLocaleString("en")} ids (half present), p = 0.01, median of ${RUNS} rounds`);
console.log(`  client filter built in ${buildMs.toFixed(0)} ms (addAll of a BigInt64Array)`);
console.log(`  ${"query".padEnd(46)} ${"bytes sent".padStart(12)} ${"time".padStart(10)} ${"rows".padStart(10)}`);
for (const [name, bytes, ms, rows] of results)
  console.log(`  ${name.padEnd(46)} ${bytes.toLocaleString("en").padStart(12)} ${ms.toFixed(0).padStart(7)} ms ${rows.toLocaleString("en").padStart(10)}`);
const [bloomBinary, bloomText, any] = results;
if (bloomBinary[3] !== bloomText[3]) throw new Error("the binary and text filters counted different rows");
console.log(`  bytes: ${(any[1] / bloomBinary[1]).toFixed(1)}x fewer (binary filter), ${(any[1] / bloomText[1]).toFixed(1)}x (text filter); time: ${(any[2] / bloomBinary[2]).toFixed(2)}x (binary), ${(any[2] / bloomText[2]).toFixed(2)}x (text)`);
