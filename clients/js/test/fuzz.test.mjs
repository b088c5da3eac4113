// The decoders fuzzed: valid text and binary forms of every type (the
// golden vectors) mutated at random (bytes flipped, cut, repeated, spliced,
// characters swapped) and fed to fromText and fromBinary for a fixed time
// (BLOOM_JS_FUZZ_SECONDS, default 10).  Each must return a value, whose
// forms read back as themselves, or throw the library's BloomError: any
// other error (a WebAssembly trap, a RangeError) or a hang fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as bf from "../dist/esm/index.js";
import { golden, hexBytes } from "./golden.mjs";
import { random } from "./values.mjs";

const SECONDS = Number(process.env.BLOOM_JS_FUZZ_SECONDS ?? 10);
const READERS = { bloom: bf.Bloom, counting_bloom: bf.CountingBloom, scalable_bloom: bf.ScalableBloom };

const seeds = [];
const add = (type, text, send) => seeds.push({ type, text, binary: hexBytes(send) });
for (const f of golden.filters) if (f.text.length < 4000) add("bloom", f.text, f.send);
for (const f of golden.counting) add("counting_bloom", f.text, f.send);
for (const f of golden.scalable) add("scalable_bloom", f.text, f.send);
for (const f of golden.forms) {
  if (f.form === "text") seeds.push({ type: f.type, text: f.input, binary: new TextEncoder().encode(f.input) });
  else seeds.push({ type: f.type, text: "", binary: hexBytes(f.input) });
}

const DIGITS = "0123456789:;=+/AZaz-vhmkfpnsrco.eE ";

function mutate(r, bytes, donor) {
  const out = Array.from(bytes);
  for (let n = r.int(1, 4); n > 0; n--) {
    const at = r.int(0, out.length);
    switch (r.int(0, 7)) {
      case 0: if (out.length) out[Math.min(at, out.length - 1)] ^= 1 << r.int(0, 7); break;
      case 1: out.splice(at, r.int(1, 16)); break;
      case 2: out.splice(at, 0, ...out.slice(at, at + r.int(1, 32))); break;
      case 3: out.splice(at, 0, r.int(0, 255)); break;
      case 4: out.splice(at, r.int(0, 8), ...donor.slice(r.int(0, donor.length), r.int(0, donor.length))); break;
      case 5: out[Math.min(at, Math.max(0, out.length - 1))] = DIGITS.charCodeAt(r.int(0, DIGITS.length - 1)); break;
      case 6: out.length = Math.min(out.length, at); break;
      default: out.splice(at, 0, ...Array.from({ length: r.int(1, 8) }, () => r.pick([0x30, 0x39, 0x3a, 0xff, 0x00, 0x81, 0x7f]))); break;
    }
  }
  return Uint8Array.from(out);
}

function check(reader, read, input, label) {
  let value;
  try {
    value = read();
  } catch (e) {
    if (e instanceof bf.BloomError) return "refused";
    assert.fail(`${label}: ${e && e.stack || e}\ninput: ${Buffer.from(input).toString("hex").slice(0, 400)}`);
  }
  // what was accepted reads back as itself
  const text = value.toText();
  assert.equal(reader.fromText(text).toText(), text, label);
  return "accepted";
}

test(`fuzz: mutated forms for ${SECONDS} s: accepted and consistent, or refused with BloomError`, { timeout: (SECONDS + 60) * 1000 }, (t) => {
  const r = random(20261128);
  const decoder = new TextDecoder();
  const counts = { accepted: 0, refused: 0 };
  const end = Date.now() + SECONDS * 1000;
  let rounds = 0;
  while (Date.now() < end) {
    for (let i = 0; i < 200; i++, rounds++) {
      const seed = r.pick(seeds);
      const donor = r.pick(seeds).binary;
      const reader = READERS[seed.type];
      const binary = mutate(r, seed.binary, donor);
      counts[check(reader, () => reader.fromBinary(binary), binary, `${seed.type} binary`)]++;
      const text = seed.text ? mutate(r, new TextEncoder().encode(seed.text), new TextEncoder().encode(r.pick(seeds).text)) : binary;
      const string = decoder.decode(text);
      counts[check(reader, () => reader.fromText(string), text, `${seed.type} text`)]++;
      // a form of one type given to another type's reader
      const other = r.pick(Object.values(READERS));
      counts[check(other, () => other.fromBinary(binary), binary, "another type's binary")]++;
    }
  }
  assert.ok(counts.refused > 0 && counts.accepted > 0);
  t.diagnostic(`${rounds} rounds, ${counts.accepted + counts.refused} inputs: ${counts.accepted} accepted, ${counts.refused} refused with BloomError, nothing else`);
});

test("values the client cannot encode are refused, never guessed", () => {
  const f = bf.empty();
  const refused = [
    42, 1.5, NaN, null, undefined, {}, [], Symbol.iterator, 2n ** 63n, -(2n ** 63n) - 1n, "a\u0000b", "\ud800", "x\udc00",
    bf.Int2(40000), bf.Int4(2 ** 31), bf.Int8(2 ** 53), bf.Int8(1.5), bf.Float8("1"), bf.Uuid("nope"), bf.Uuid(new Uint8Array(15)),
    bf.PgDate("2024-02-30"), bf.PgDate(new Date("2024-01-01T01:00:00Z")), new Date(NaN), bf.Timestamp(-(2n ** 62n)),
    bf.Numeric("1.2.3"), bf.Numeric(""), bf.Numeric("1e999999999"),
  ];
  for (const v of refused) {
    assert.throws(() => f.add(v), bf.BloomError, String(typeof v === "symbol" ? "symbol" : v?.type ?? v));
    assert.throws(() => f.contains(v), bf.BloomError);
  }
  assert.throws(() => f.addAll([1, 2, 3]), bf.BloomError);
  assert.throws(() => f.addAll(new Uint8Array(4)), bf.BloomError);
  assert.throws(() => f.addAll(new Int32Array(4), "int8"), bf.BloomError);
  assert.equal(f.bitsSet(), 0, "nothing was added by the refused values");
});
