"""The Python surface: batches of every form, errors that leave a filter as it was, copies."""
import array
import pickle
import unittest

import bloomfilter


class Batches(unittest.TestCase):
    def test_buffers_are_their_values(self):
        """A typed buffer adds what its elements as Python values add (integers, float8, float4)."""
        cases = [("q", [0, -1, 2**63 - 1, -2**63, 42]), ("Q", [0, 2**63, 2**64 - 1, 42]),
                 ("i", [0, -2**31, 2**31 - 1]), ("h", [-32768, 32767]), ("B", [0, 255]),
                 ("d", [0.0, -0.0, 1.5, float("nan"), float("inf")]),
                 ("f", [0.1, -0.0, 3.4028234663852886e38])]
        for code, values in cases:
            with self.subTest(code=code):
                buffer = array.array(code, values)
                a = bloomfilter.empty(0.01, 100)
                a.add_many(buffer)
                b = bloomfilter.empty(0.01, 100)
                for v in buffer:   # array('f') yields the float4 widened, as the server's float4
                    b.add(v)
                self.assertEqual(a, b)
                self.assertEqual(a.contains_many(buffer), [True] * len(values))
                self.assertEqual(a.contains_many(list(buffer)), [True] * len(values))

    def test_batch_equals_single(self):
        values = list(range(-5000, 5000)) + ["a", "é", b"x", 1.5, True]
        for f in (bloomfilter.empty(0.01, 10**4), bloomfilter.empty(0.01, 3 * 10**6),
                  bloomfilter.CountingBloom.empty(0.01, 10**4), bloomfilter.ScalableBloom.empty(0.01, 100)):
            with self.subTest(kind=f.kind, nbytes=f.nbytes):
                g = f.copy()
                f.add_many(values)
                for v in values:
                    g.add(v)
                self.assertEqual(f, g)
                self.assertEqual(f.contains_many(values), [True] * len(values))
                self.assertEqual(f.contains_many(iter(values)), [True] * len(values))

    def test_failed_batch_changes_nothing(self):
        f = bloomfilter.empty(0.01, 100)
        f.add(1)
        before = f.to_binary()
        with self.assertRaises(bloomfilter.BloomError):
            f.add_many([2, 3, "é", None, 4])
        self.assertEqual(f.to_binary(), before)
        self.assertEqual(f.flags, 0)


class Objects(unittest.TestCase):
    def test_pickle_and_copy(self):
        for f in (bloomfilter.empty(0.01, 100), bloomfilter.CountingBloom.empty_mk(100, 3),
                  bloomfilter.ScalableBloom.empty(0.01, 10)):
            f.add_many([1, 2, 3])
            self.assertEqual(pickle.loads(pickle.dumps(f)), f)
            g = f.copy()
            g.add(4)
            self.assertNotEqual(g, f)

    def test_scalable_grows(self):
        s = bloomfilter.ScalableBloom.empty(0.01, 10)
        s.add_many(range(1000))
        self.assertGreater(len(s.parameters()["stages"]), 5)
        self.assertEqual(s.contains_many(range(1000)), [True] * 1000)
        with self.assertRaises(bloomfilter.BloomError):
            s.to_bloom()

    def test_non_ascii_text_sets_the_flag(self):
        f = bloomfilter.empty(0.01, 100)
        f.add("abc")
        f.add(b"\xc3\xa9")
        self.assertEqual(f.flags, 0)
        f.add("é")
        self.assertEqual(f.flags, 1)
        self.assertTrue(f.to_text().startswith("bloom:v1:h1:m959:k7:f1:"))

    def test_values(self):
        self.assertEqual(bloomfilter.value(42), bloomfilter.value(42, "int2"))
        self.assertEqual(bloomfilter.value(42).data, (42).to_bytes(8, "little"))
        self.assertNotEqual(bloomfilter.value(42), bloomfilter.value(42, "float8"))
        self.assertEqual(bloomfilter.value("ab  ", "bpchar"), bloomfilter.value("ab"))
        self.assertEqual(bloomfilter.value("x" * 70, "name"), bloomfilter.value("x" * 63))
        self.assertIn(bloomfilter.value(1.5, "float8"), {bloomfilter.value(1.5)})


if __name__ == "__main__":
    unittest.main()
