"""The client against clients/golden/golden.json: the server's answers, without a server."""
import hashlib
import unittest

import bloomfilter
from common import encoded, golden, python_value, same_float, server_float


class Values(unittest.TestCase):
    def test_hashes(self):
        """Every value's 128-bit hash and flags are bloom_value's, per SQL type."""
        for sqltype, values in golden()["types"].items():
            with self.subTest(sqltype=sqltype):
                wrong = [v["value"] for v in values
                         if ("%016x" % encoded(sqltype, v["value"]).h1, "%016x" % encoded(sqltype, v["value"]).h2,
                             encoded(sqltype, v["value"]).flags) != (v["h1"], v["h2"], v["flags"])]
                self.assertEqual(wrong, [], f"{len(wrong)} of {len(values)} {sqltype} values hash otherwise")

    def test_python_types_default(self):
        """A value of the Python type that stands for the SQL type needs no name."""
        for sqltype in ("int8", "numeric", "float8", "text", "bytea", "uuid", "date", "timestamp",
                        "timestamptz", "bool"):
            for v in golden()["types"][sqltype]:
                x = python_value(sqltype, v["value"])
                self.assertEqual(bloomfilter.value(x), encoded(sqltype, v["value"]), (sqltype, v["value"]))
                self.assertEqual(bloomfilter._core.hash(x), (int(v["h1"], 16), int(v["h2"], 16), v["flags"]))


class Filters(unittest.TestCase):
    def build(self, entry):
        if entry["hash_scheme"] == 1:
            f = bloomfilter.empty(entry["p"], entry["n"])
        else:
            f = bloomfilter.Bloom.from_text(entry["template"])
        f.add_many([encoded(entry["type"], v) for v in entry["values"]])
        return f

    def test_filters(self):
        """bloom_agg's filters of each type, both hash schemes: text, send, info and every probe."""
        for entry in golden()["filters"]:
            with self.subTest(type=entry["type"], scheme=entry["hash_scheme"], p=entry.get("p")):
                f = self.build(entry)
                self.assertEqual(f.hash_scheme, entry["hash_scheme"])
                self.assertEqual(f.to_text(), entry["text"])
                self.assertEqual(f.to_binary().hex(), entry["send"])
                self.assertEqual(bloomfilter.Bloom.from_binary(bytes.fromhex(entry["send"])), f)
                self.assertEqual(bloomfilter.from_text(entry["text"]).to_binary().hex(), entry["send"])
                info = f.info()
                for field, expected in entry["info"].items():
                    got = getattr(info, field)
                    if isinstance(expected, str):
                        self.assertTrue(same_float(got, server_float(expected)), (field, got, expected))
                    else:
                        self.assertEqual(got, expected, field)
                probes = [encoded(entry["type"], p["value"]) for p in entry["probes"]]
                self.assertEqual(f.contains_many(probes), [p["contains"] for p in entry["probes"]])
                self.assertEqual([f.contains(p) for p in probes], [p["contains"] for p in entry["probes"]])

    def test_large_blocked(self):
        """bloom_agg(i, 0.01, 2000000): a 2.4 MB hash scheme 2 filter, the same bytes (SHA-256)."""
        for entry in golden()["large"]:
            f = bloomfilter.empty(entry["p"], entry["n"])
            f.add_many(list(range(1, 1001)))
            self.assertEqual((f.m, f.k, f.hash_scheme, f.bits_set()), (entry["m"], entry["k"], 2, entry["bits_set"]))
            self.assertEqual(hashlib.sha256(f.to_binary()).hexdigest(), entry["send_sha256"])
            self.assertTrue(same_float(f.cardinality(), server_float(entry["estimated_cardinality"])))


class Sizing(unittest.TestCase):
    def test_optimal_grid(self):
        """bloom_optimal over p x n: m, k, bytes, bits per item, scheme; or the same error."""
        for entry in golden()["optimal"]:
            p = float(entry["p"])
            with self.subTest(p=entry["p"], n=entry["n"]):
                if "error" in entry:
                    with self.assertRaises(bloomfilter.BloomError) as caught:
                        bloomfilter.optimal(p, entry["n"])
                    self.assertEqual(caught.exception.sqlstate, entry["error"]["sqlstate"])
                    with self.assertRaises(bloomfilter.BloomError):
                        bloomfilter.empty(p, entry["n"])
                    continue
                o = bloomfilter.optimal(p, entry["n"])
                self.assertEqual((o.m, o.k, o.bytes, o.hash_scheme),
                                 (entry["m"], entry["k"], entry["bytes"], entry["hash_scheme"]))
                self.assertTrue(same_float(o.bits_per_item, server_float(entry["bits_per_item"])))
                if entry["m"] < 10**8:
                    f = bloomfilter.empty(p, entry["n"])
                    self.assertEqual((f.m, f.k, f.hash_scheme, f.info().bytes),
                                     (entry["m"], entry["k"], entry["hash_scheme"], entry["bytes"]))

    def test_empty_mk(self):
        for entry in golden()["empty_mk"]:
            with self.subTest(m=entry["m"], k=entry["k"]):
                if "error" in entry:
                    with self.assertRaises(bloomfilter.BloomError) as caught:
                        bloomfilter.empty_mk(entry["m"], entry["k"])
                    self.assertEqual(caught.exception.sqlstate, entry["error"]["sqlstate"])
                elif "text" in entry:
                    self.assertEqual(bloomfilter.empty_mk(entry["m"], entry["k"]).to_text(), entry["text"])

    def test_expected_fpr(self):
        for entry in golden()["expected_fpr"]:
            e = bloomfilter.expected_fpr(entry["m"], entry["k"], entry["n"])
            self.assertTrue(same_float(e.classic, server_float(entry["classic"])), entry)
            self.assertTrue(same_float(e.goel_gupta_bound, server_float(entry["goel_gupta_bound"])), entry)


class Estimates(unittest.TestCase):
    def test_pairs(self):
        """Union and intersection estimates, Jaccard, |, & and = as the server's, to the last digit."""
        for entry in golden()["pairs"]:
            a = bloomfilter.from_text(entry["a"])
            b = bloomfilter.from_text(entry["b"])
            for name in ("union_cardinality", "intersection_cardinality", "jaccard"):
                self.assertTrue(same_float(getattr(a, name)(b), server_float(entry[name])), (name, entry[name]))
            self.assertEqual((a | b).to_text(), entry["union"])
            self.assertEqual((a & b).to_text(), entry["intersection"])
            self.assertEqual(bloomfilter.union(a, None, b).to_text(), entry["union"])
            self.assertEqual(a.intersection(b).to_text(), entry["intersection"])
            self.assertEqual(a == b, entry["equal"])

    def test_saturated(self):
        s = golden()["saturated"]
        info = bloomfilter.from_text(s["text"]).info()
        for field, expected in s["info"].items():
            got = getattr(info, field)
            self.assertTrue(same_float(got, server_float(expected)) if isinstance(expected, str) else got == expected)

    def test_different_shapes(self):
        with self.assertRaises(bloomfilter.BloomError) as caught:
            bloomfilter.empty(0.01, 10) | bloomfilter.empty(0.01, 11)
        self.assertEqual(caught.exception.sqlstate, "22023")
        self.assertEqual(caught.exception.detail,
                         "One filter has m = 96, k = 7, hash scheme 1; the other has m = 106, k = 7, hash scheme 1.")


class Variants(unittest.TestCase):
    def test_counting(self):
        for entry in golden()["counting"]:
            f = bloomfilter.CountingBloom.empty(entry["p"], entry["n"])
            f.add_many([int(v) for v in entry["values"]])
            self.assertEqual(f.to_text(), entry["text"])
            self.assertEqual(f.to_binary().hex(), entry["send"])
            g = bloomfilter.CountingBloom.from_binary(bytes.fromhex(entry["send"]))
            self.assertEqual(g, f)
            self.assertEqual(bloomfilter.from_text(entry["text"]), f)
            self.assertEqual(f.to_bloom().to_text(), entry["bloom"])
            self.assertEqual(g.contains_many([int(p["value"]) for p in entry["probes"]]),
                             [p["contains"] for p in entry["probes"]])

    def test_scalable(self):
        for entry in golden()["scalable"]:
            parsed = bloomfilter.ScalableBloom.from_text(entry["text"])
            self.assertEqual(parsed.to_binary().hex(), entry["send"])
            self.assertEqual(bloomfilter.ScalableBloom.from_binary(bytes.fromhex(entry["send"])).to_text(),
                             entry["text"])
            probes = [python_value(entry["type"], p["value"]) for p in entry["probes"]]
            self.assertEqual(parsed.contains_many(probes), [p["contains"] for p in entry["probes"]])
            if "cardinality" in entry:
                self.assertTrue(same_float(parsed.cardinality(), server_float(entry["cardinality"])))
            if "empty" in entry:
                args = [float(a) if "." in a else int(a) for a in entry["empty"][len("scalable_bloom_empty("):-1].split(", ")]
                built = bloomfilter.ScalableBloom.empty(*args)
                built.add_many([python_value(entry["type"], v) for v in entry["values"]])
                self.assertEqual(built.to_text(), entry["text"])


class Forms(unittest.TestCase):
    def test_forms(self):
        """Every text and binary form the server refused is refused with its SQLSTATE and detail."""
        for entry in golden()["forms"]:
            data = entry["input"] if entry["form"] == "text" else bytes.fromhex(entry["input"])
            cls = {"bloom": bloomfilter.Bloom, "counting_bloom": bloomfilter.CountingBloom,
                   "scalable_bloom": bloomfilter.ScalableBloom}[entry["type"]]
            read = cls.from_text if entry["form"] == "text" else cls.from_binary
            with self.subTest(form=entry["form"], input=entry["input"][:60]):
                if entry["error"] is None:
                    self.assertEqual(read(data).to_text(), entry["text"])
                    continue
                with self.assertRaises(bloomfilter.BloomError) as caught:
                    read(data)
                self.assertEqual(caught.exception.sqlstate, entry["error"]["sqlstate"])
                self.assertEqual(caught.exception.detail, entry["error"]["detail"])


if __name__ == "__main__":
    unittest.main()
