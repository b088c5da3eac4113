// The client against the golden vectors: no server needed.  Every expected
// byte, hash and number here is the server's (clients/golden/golden.json).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as bf from "../dist/esm/index.js";
import { golden, clientValue, serverFloat, hexBytes } from "./golden.mjs";

const hex64 = (x) => x.toString(16).padStart(16, "0");

for (const [type, values] of Object.entries(golden.types)) {
  test(`hashes of ${type} values equal bloom_value's`, (t) => {
    let equal = 0;
    for (const { value, h1, h2, flags } of values) {
      const hash = bf.hashValue(clientValue(type, value));
      assert.equal(`${hex64(hash.h1)} ${hex64(hash.h2)} ${hash.utf8 ? 1 : 0}`, `${h1} ${h2} ${flags}`, `${type} ${JSON.stringify(value)}`);
      equal++;
    }
    t.diagnostic(`${type}: ${equal} of ${values.length} hashes equal`);
  });
}

function assertInfo(filter, info) {
  const mine = filter.info();
  assert.equal(mine.m, info.m);
  assert.equal(mine.k, info.k);
  assert.equal(mine.bytes, info.bytes);
  assert.equal(mine.bitsSet, info.bits_set);
  assert.equal(mine.fillRatio, serverFloat(info.fill_ratio));
  assert.equal(mine.estimatedCardinality, serverFloat(info.estimated_cardinality));
  assert.equal(mine.falsePositiveRate, serverFloat(info.false_positive_rate));
}

for (const entry of golden.filters) {
  const name = `${entry.type} filter, hash scheme ${entry.hash_scheme}${entry.template ? " (bloom_agg_like)" : `, p ${entry.p}, n ${entry.n}`}`;
  test(`${name}: built one by one and in a batch, byte for byte the server's`, () => {
    const values = entry.values.map((v) => clientValue(entry.type, v));
    const make = () => (entry.template ? bf.fromText(entry.template) : bf.empty(entry.p, entry.n));
    const one = make();
    for (const v of values) one.add(v);
    const batch = make().addAll(values);
    const send = hexBytes(entry.send);
    assert.deepEqual(one.toBinary(), send);
    assert.deepEqual(batch.toBinary(), send);
    assert.equal(one.toText(), entry.text);
    assert.equal(bf.fromText(entry.text).toText(), entry.text);
    assert.ok(bf.fromBinary(send).equals(one));
    assertInfo(one, entry.info);
    const probes = entry.probes.map((p) => clientValue(entry.type, p.value));
    const expected = entry.probes.map((p) => p.contains);
    assert.deepEqual(probes.map((v) => one.contains(v)), expected);
    assert.deepEqual(one.containsAll(probes), expected);
  });
}

test("text batches: ASCII chunks (joined, encoded in one call) and the others (value by value) give the same bits", () => {
  const ascii = Array.from({ length: 20000 }, (_, i) => (i % 101 === 0 ? "" : `value ${i} ${"x".repeat(i % 17)}`));
  const one = bf.empty(0.01, 50000);
  for (const v of ascii) one.add(v);
  const probes = ascii.map((v, i) => (i % 2 ? v : `${v}?`));
  const singles = probes.map((v) => one.contains(v));
  for (const [name, values, type] of [
    ["an array", ascii, undefined],
    ["an array named text", ascii, "text"],
    ["an array-like object", { length: ascii.length, ...ascii }, undefined],
  ]) {
    assert.deepEqual(bf.empty(0.01, 50000).addAll(values, type).toBinary(), one.toBinary(), name);
    assert.deepEqual(one.containsAll(values, type), ascii.map(() => true), name);
  }
  assert.deepEqual(one.containsAll(probes), singles);
  // a non-ASCII string sends its chunk value by value, with the UTF-8 flag
  const mixed = ascii.slice(0, 1000).concat(["é"]);
  const mixedOne = bf.empty(0.01, 50000);
  for (const v of mixed) mixedOne.add(v);
  const mixedBatch = bf.empty(0.01, 50000).addAll(mixed);
  assert.deepEqual(mixedBatch.toBinary(), mixedOne.toBinary());
  assert.equal(mixedBatch.flags & bf.FLAG_TEXT_UTF8, bf.FLAG_TEXT_UTF8);
  // what a string cannot be is refused in a batch as one at a time
  for (const bad of ["a\u0000b", "\ud800", 42, null]) {
    const f = bf.empty(0.01, 50000);
    assert.throws(() => f.addAll(["ok", bad, "fine"]), bf.BloomError, String(bad));
    assert.throws(() => f.containsAll(["ok", bad]), bf.BloomError, String(bad));
    assert.equal(f.bitsSet(), 0, "nothing of the refused batch was added");
  }
});

test("large: a 2.4 MB hash scheme 2 filter of generate_series(1, 1000)", () => {
  const large = golden.large[0];
  const filter = bf.empty(large.p, large.n).addAll(BigInt64Array.from({ length: 1000 }, (_, i) => BigInt(i + 1)));
  assert.equal(filter.m, large.m);
  assert.equal(filter.k, large.k);
  assert.equal(filter.hashScheme, 2);
  assert.equal(createHash("sha256").update(filter.toBinary()).digest("hex"), large.send_sha256);
  assert.equal(filter.bitsSet(), large.bits_set);
  assert.equal(filter.cardinality(), serverFloat(large.estimated_cardinality));
});

test("sizing: optimal(p, n) is bloom_optimal(p, n) over the grid, errors included", (t) => {
  let shapes = 0, errors = 0;
  for (const row of golden.optimal) {
    const p = serverFloat(row.p);
    if (row.error) {
      assert.throws(() => bf.optimal(p, row.n), (e) => {
        assert.ok(e instanceof bf.BloomError);
        assert.deepEqual([e.code, e.message, e.detail], [row.error.sqlstate, row.error.message, row.error.detail], `p ${row.p} n ${row.n}`);
        return true;
      });
      errors++;
      continue;
    }
    const shape = bf.optimal(p, row.n);
    assert.deepEqual([shape.m, shape.k, shape.bytes, shape.bitsPerItem, shape.hashScheme],
      [row.m, row.k, row.bytes, serverFloat(row.bits_per_item), row.hash_scheme], `p ${row.p} n ${row.n}`);
    const filter = row.bytes < 1 << 20 ? bf.empty(p, row.n) : null;
    if (filter) assert.deepEqual([filter.m, filter.k, filter.hashScheme], [row.m, row.k, row.hash_scheme]);
    shapes++;
  }
  t.diagnostic(`sizing grid: ${shapes} shapes and ${errors} errors equal of ${golden.optimal.length}`);
});

test("emptyMK is bloom_empty_mk", () => {
  for (const row of golden.empty_mk) {
    if (row.error && row.error.message.startsWith("bloom_empty_mk")) {
      assert.throws(() => bf.emptyMK(row.m, row.k), (e) => e.code === row.error.sqlstate && e.message === row.error.message && e.detail === row.error.detail);
    } else if (row.text) {
      assert.equal(bf.emptyMK(row.m, row.k).toText(), row.text);
    }
  }
});

test("expected false-positive rate is bloom_expected_fpr's classic estimate", () => {
  for (const row of golden.expected_fpr)
    assert.equal(bf.expectedFalsePositiveRate(row.m, row.k, row.n), serverFloat(row.classic));
});

test("pairs: union, intersection, equality and their estimates", () => {
  for (const pair of golden.pairs) {
    const a = bf.fromText(pair.a);
    const b = bf.fromText(pair.b);
    assert.equal(a.union(b).toText(), pair.union);
    assert.equal(a.intersection(b).toText(), pair.intersection);
    assert.equal(a.equals(b), pair.equal);
    assert.equal(a.unionCardinality(b), serverFloat(pair.union_cardinality));
    assert.equal(a.intersectionCardinality(b), serverFloat(pair.intersection_cardinality));
    assert.equal(a.jaccard(b), serverFloat(pair.jaccard));
  }
});

test("a saturated filter: Infinity, as the server says", () => {
  const filter = bf.fromText(golden.saturated.text);
  const info = golden.saturated.info;
  assertInfo(filter, info);
});

test("counting_bloom: read in both forms, probed as bloom_contains", () => {
  for (const entry of golden.counting) {
    const text = bf.CountingBloom.fromText(entry.text);
    const binary = bf.CountingBloom.fromBinary(hexBytes(entry.send));
    assert.equal(text.toText(), entry.text);
    assert.equal(binary.toText(), entry.text);
    for (const probe of entry.probes) {
      const v = clientValue(entry.type, probe.value);
      assert.equal(text.contains(v), probe.contains);
      assert.equal(binary.contains(v), probe.contains);
    }
  }
});

test("scalable_bloom: read in both forms, probed as bloom_contains", () => {
  for (const entry of golden.scalable) {
    const text = bf.ScalableBloom.fromText(entry.text);
    const binary = bf.ScalableBloom.fromBinary(hexBytes(entry.send));
    assert.equal(text.toText(), entry.text);
    assert.deepEqual(text.toBinary(), hexBytes(entry.send));
    assert.equal(binary.toText(), entry.text);
    if (entry.cardinality !== undefined) assert.equal(text.cardinality(), serverFloat(entry.cardinality));
    for (const probe of entry.probes) {
      const v = clientValue(entry.type, probe.value);
      assert.equal(text.contains(v), probe.contains);
      assert.equal(binary.contains(v), probe.contains);
    }
  }
});

const READERS = {
  bloom: bf.Bloom,
  counting_bloom: bf.CountingBloom,
  scalable_bloom: bf.ScalableBloom,
};

test("malformed forms: refused with the server's SQLSTATE and detail, valid ones read as the server reads them", (t) => {
  let n = 0;
  for (const form of golden.forms) {
    const reader = READERS[form.type];
    const input = form.form === "text" ? form.input : hexBytes(form.input);
    const read = () => (form.form === "text" ? reader.fromText(input) : reader.fromBinary(input));
    const label = `${form.type} ${form.form} ${form.name ?? JSON.stringify(form.input).slice(0, 60)}`;
    if (form.error) {
      assert.throws(read, (e) => {
        assert.ok(e instanceof bf.BloomError, `${label}: ${e}`);
        assert.equal(e.code, form.error.sqlstate, label);
        assert.equal(e.detail, form.error.detail, label);
        return true;
      });
    } else {
      assert.equal(read().toText(), form.text, label);
    }
    n++;
  }
  t.diagnostic(`${n} forms`);
});
