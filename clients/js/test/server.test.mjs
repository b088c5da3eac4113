// The client against a real server (make test's throwaway cluster: PGHOST,
// PGPORT, PGDATABASE, PGUSER): per type, 10,000 random values and the edge
// cases built by bloom_agg(v, p, n) and by the client must be the same bytes
// under both hash schemes, and 100,000 probes must answer as bloom_contains;
// the estimates must be the server's to the last digit; a filter must
// round-trip through node-postgres as a parameter and as a column, in text
// and in binary.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import * as bf from "../dist/esm/index.js";
import { TYPES, random } from "./values.mjs";

const SHAPES = [
  { scheme: 1, p: 0.01, n: 20000 },
  { scheme: 2, p: 0.01, n: 2000000 }, // 2.4 MB: bloom_agg chooses hash scheme 2
];
const PROBES = 100000;

let client;
before(async () => {
  client = new pg.Client();
  await client.connect();
  await client.query("SET client_min_messages = warning");
  await client.query("CREATE EXTENSION IF NOT EXISTS bloomfilter");
  // a session zone that is not UTC: timestamptz literals carry their own
  await client.query("SET TimeZone = 'America/New_York'");
  await bf.registerTypes(client);
});
after(async () => client?.end());

for (const [type, generate] of Object.entries(TYPES)) {
  test(`${type}: 10,000 random values and the edge cases, byte for byte bloom_agg's, and ${PROBES} probes as bloom_contains`, async (t) => {
    const r = random(type.length * 7919 + type.charCodeAt(0));
    const pairs = generate(r);
    const literals = pairs.map(([literal]) => literal);
    const values = pairs.map(([, value]) => value);
    // probes: the values added, then as many others (absent, or false positives)
    const others = [];
    for (let seed = 1; others.length < PROBES - pairs.length; seed++) others.push(...generate(random(type.length * 104729 + seed)));
    others.length = PROBES - pairs.length;
    const probeLiterals = literals.concat(others.map(([literal]) => literal));
    const probeValues = values.concat(others.map(([, value]) => value));
    for (const shape of SHAPES) {
      const server = await client.query(
        `SELECT bloom_send(bloom_agg(v::${type}, $2, $3)) AS send FROM unnest($1::text[]) v`,
        [literals, shape.p, shape.n],
      );
      const filter = bf.empty(shape.p, shape.n).addAll(values);
      assert.equal(filter.hashScheme, shape.scheme);
      const mine = filter.toBinary();
      const theirs = new Uint8Array(server.rows[0].send);
      assert.equal(mine.length, theirs.length);
      assert.ok(Buffer.compare(mine, theirs) === 0, `${type} hash scheme ${shape.scheme}: the filters differ`);
      // one at a time too
      const single = bf.empty(shape.p, shape.n);
      for (const v of values.slice(0, 2000)) single.add(v);
      const partial = await client.query(
        `SELECT bloom_send(bloom_agg(v::${type}, $2, $3)) AS send FROM unnest($1::text[]) v`,
        [literals.slice(0, 2000), shape.p, shape.n],
      );
      assert.ok(Buffer.compare(single.toBinary(), partial.rows[0].send) === 0);
      // the server probes the client's filter, sent as a parameter
      const answers = await client.query(
        `SELECT string_agg(CASE WHEN bloom_contains($1::bloom, v::${type}) THEN '1' ELSE '0' END, '' ORDER BY i) AS bits
           FROM unnest($2::text[]) WITH ORDINALITY AS u(v, i)`,
        [filter, probeLiterals],
      );
      const expected = answers.rows[0].bits;
      const batch = filter.containsAll(probeValues);
      let agree = 0;
      let positives = 0;
      for (let i = 0; i < probeValues.length; i++) {
        if ((batch[i] ? "1" : "0") === expected[i]) agree++;
        if (i >= pairs.length && batch[i]) positives++;
      }
      assert.equal(agree, probeValues.length, `${type} hash scheme ${shape.scheme}: contains disagrees`);
      for (let i = 0; i < probeValues.length; i += 97) assert.equal(filter.contains(probeValues[i]) ? "1" : "0", expected[i]);
      t.diagnostic(
        `${type} hash scheme ${shape.scheme}: ${pairs.length} values, filter (${theirs.length} bytes) equal; ` +
        `${agree} of ${probeValues.length} probes agree (${positives} of the ${probeValues.length - pairs.length} other random values test positive)`,
      );
    }
  });
}

test("values of one group hash alike: 42::int8 in a numeric filter of 42.000, a date and its midnight", async () => {
  const { rows } = await client.query(
    `SELECT bloom_send(bloom_agg(v, 0.01, 100)) AS n FROM (VALUES (42.000::numeric), ('-9223372036854775808'::numeric)) t(v)`,
  );
  const filter = bf.fromBinary(new Uint8Array(rows[0].n));
  assert.ok(filter.contains(42n));
  assert.ok(filter.contains(bf.Int2(42)));
  assert.ok(filter.contains(bf.Numeric("42")));
  assert.ok(filter.contains(-(2n ** 63n)));
  const dates = await client.query(`SELECT bloom_agg(d, 0.01, 100) AS f FROM (VALUES ('1987-06-05'::date)) t(d)`);
  assert.ok(dates.rows[0].f.contains(new Date("1987-06-05T00:00:00Z")));
  assert.ok(dates.rows[0].f.contains(bf.Timestamp(new Date("1987-06-05T00:00:00Z"))));
});

test("text batches of ASCII strings (laid out in one call) are bloom_agg's, and probe as bloom_contains", async (t) => {
  // more than one chunk (16,384 values), empty strings and every printable
  // ASCII character: the batch path that skips the value-by-value encoder
  const r = random(4242);
  const values = Array.from({ length: 40000 }, (_, i) =>
    i % 997 === 0 ? "" : Array.from({ length: 1 + (r() % 24) }, () => String.fromCharCode(32 + (r() % 95))).join(""));
  const probes = values.map((v, i) => (i % 2 ? v : v + "~"));
  for (const shape of SHAPES) {
    const server = await client.query(
      `SELECT bloom_send(bloom_agg(v, $2, $3)) AS send,
              (SELECT string_agg(CASE WHEN bloom_contains(bloom_agg(v, $2, $3), q) THEN '1' ELSE '0' END, '' ORDER BY i)
                 FROM unnest($4::text[]) WITH ORDINALITY AS u(q, i)) AS bits
         FROM unnest($1::text[]) v`,
      [values, shape.p, shape.n, probes],
    );
    const filter = bf.empty(shape.p, shape.n).addAll(values);
    assert.ok(Buffer.compare(filter.toBinary(), server.rows[0].send) === 0, `hash scheme ${shape.scheme}: the filters differ`);
    assert.equal(filter.flags & bf.FLAG_TEXT_UTF8, 0, "ASCII text does not set the UTF-8 flag");
    assert.equal(filter.containsAll(probes).map((b) => (b ? "1" : "0")).join(""), server.rows[0].bits);
    t.diagnostic(`hash scheme ${shape.scheme}: ${values.length} ASCII strings, the same bytes; ${probes.length} probes, the same answers`);
  }
});

test("estimates: the server's to the last digit", async (t) => {
  const a = bf.empty(0.01, 5000).addAll(BigInt64Array.from({ length: 4000 }, (_, i) => BigInt(i)));
  const b = bf.empty(0.01, 5000).addAll(BigInt64Array.from({ length: 3000 }, (_, i) => BigInt(i * 3)));
  const { rows } = await client.query(
    `SELECT bloom_cardinality($1) AS ca, bloom_union_cardinality($1, $2) AS cu,
            bloom_intersection_cardinality($1, $2) AS ci, bloom_jaccard($1, $2) AS j,
            ($1::bloom | $2::bloom) AS u, ($1::bloom & $2::bloom) AS i, $1::bloom = $2::bloom AS eq,
            (bloom_info($1)).*`,
    [a, b],
  );
  const row = rows[0];
  assert.equal(a.cardinality(), row.ca);
  assert.equal(a.unionCardinality(b), row.cu);
  assert.equal(a.intersectionCardinality(b), row.ci);
  assert.equal(a.jaccard(b), row.j);
  assert.ok(a.union(b).equals(row.u));
  assert.ok(a.intersection(b).equals(row.i));
  assert.equal(a.equals(b), row.eq);
  const info = a.info();
  assert.deepEqual([info.m, info.k, info.bytes, info.bitsSet, info.fillRatio, info.estimatedCardinality, info.falsePositiveRate],
    [Number(row.m), row.k, row.bytes, Number(row.bits_set), row.fill_ratio, row.estimated_cardinality, row.false_positive_rate]);
  t.diagnostic(`cardinality ${row.ca}, union ${row.cu}, intersection ${row.ci}, jaccard ${row.j}: equal`);
});

test("node-postgres: a filter round-trips as parameter (text and binary) and as column (text)", async () => {
  const filter = bf.empty(0.01, 1000).addAll(["a", "é", "z"]);
  // text parameter (toPostgres), text column (registered parser)
  const text = await client.query("SELECT $1::bloom AS f", [filter]);
  assert.ok(text.rows[0].f instanceof bf.Bloom);
  assert.ok(text.rows[0].f.equals(filter));
  assert.equal(text.rows[0].f.flags, filter.flags);
  // binary parameter (a Uint8Array is sent in the binary form, read by bloom_recv)
  const binary = await client.query("SELECT $1::bloom AS f, bloom_send($1::bloom) AS s", [filter.toBinary()]);
  assert.ok(binary.rows[0].f.equals(filter));
  assert.ok(Buffer.compare(binary.rows[0].s, filter.toBinary()) === 0);
  // a binary column by hand: bloom_send's bytea
  assert.ok(bf.fromBinary(new Uint8Array(binary.rows[0].s)).equals(filter));
  // without a cast: the parameter's type comes from the function
  const probe = await client.query("SELECT bloom_contains($1, 'é'::text) AS yes, bloom_contains($1, 'q'::text) AS no", [filter]);
  assert.deepEqual([probe.rows[0].yes, probe.rows[0].no], [filter.contains("é"), filter.contains("q")]);
  // through a table
  await client.query("CREATE TEMP TABLE filters (id int, f bloom)");
  await client.query("INSERT INTO filters VALUES (1, $1), (2, $2)", [filter, filter.toBinary()]);
  const stored = await client.query("SELECT f FROM filters ORDER BY id");
  assert.ok(stored.rows.every((row) => row.f.equals(filter)));
  // counting and scalable columns, and their binary forms through bytea
  const other = await client.query(
    `SELECT c, s, counting_bloom_send(c) AS cs, scalable_bloom_send(s) AS ss
       FROM (SELECT counting_bloom_agg(i, 0.01, 100) AS c, scalable_bloom_agg(i, 0.01) AS s FROM generate_series(1, 50) i) t`,
  );
  const row = other.rows[0];
  assert.ok(row.c instanceof bf.CountingBloom);
  assert.ok(row.s instanceof bf.ScalableBloom);
  assert.ok(row.c.contains(7n) && row.s.contains(7n));
  assert.equal(bf.CountingBloom.fromBinary(new Uint8Array(row.cs)).toText(), row.c.toText());
  assert.equal(bf.ScalableBloom.fromBinary(new Uint8Array(row.ss)).toText(), row.s.toText());
});
