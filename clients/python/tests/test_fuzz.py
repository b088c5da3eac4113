"""The decoders fuzzed: random and mutated text and binary forms of the three types.

Each input either reads (and then writes back the same form, and answers
contains) or raises BloomError: no other exception, no crash, no hang.  The
fuzzing runs in a child process, so that a crash is a failure here and not
the end of the run, for FUZZ_SECONDS (5; BLOOM_CLIENT_FUZZ_SECONDS to
change), with a time limit four times that.
"""
import os
import subprocess
import sys
import unittest

FUZZ_SECONDS = float(os.environ.get("BLOOM_CLIENT_FUZZ_SECONDS", "5"))

CHILD = r'''
import random, sys, time
import bloomfilter
from common import golden

g = golden()
texts = [e["text"] for e in g["filters"]] + [e["text"] for e in g["counting"]] + \
        [e["text"] for e in g["scalable"]] + [e["input"] for e in g["forms"] if e["form"] == "text"]
binaries = [("bloom", bytes.fromhex(e["send"])) for e in g["filters"]] + \
           [("counting_bloom", bytes.fromhex(e["send"])) for e in g["counting"]] + \
           [("scalable_bloom", bytes.fromhex(e["send"])) for e in g["scalable"]] + \
           [("bloom", bytes.fromhex(e["input"])) for e in g["forms"] if e["form"] == "binary"]
ALPHABET = ":vhmkfcpnsro;.-+/=0123456789AZaz_ " + "\u00e9\x00"
INTERESTING = [0, 1, 2, 3, 7, 8, 63, 64, 65, 0x7f, 0x80, 0x81, 0xff]

def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        if op == 0 and data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif op == 1 and data:
            data[rng.randrange(len(data))] = rng.choice(INTERESTING)
        elif op == 2:
            del data[rng.randrange(len(data) + 1):]
        elif op == 3:
            data += rng.randbytes(rng.randint(1, 16))
        elif op == 4 and len(data) >= 12:
            at = rng.choice([4, 24, 36, 44])
            data[at:at + 8] = rng.choice([0, 1, 511, 512, 2**33, 2**63, 2**64 - 1, 8589934400]).to_bytes(8, rng.choice(["big", "little"]))
        elif op == 5:
            data = bytearray(rng.randbytes(rng.randint(0, 64)))
        elif op == 6 and data:
            i = rng.randrange(len(data))
            data[i:i] = data[:rng.randint(0, 32)]
    return bytes(data)

def mutate_text(rng, text):
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        if op == 0 and chars:
            chars[rng.randrange(len(chars))] = rng.choice(ALPHABET)
        elif op == 1:
            chars.insert(rng.randrange(len(chars) + 1), rng.choice(ALPHABET))
        elif op == 2 and chars:
            del chars[rng.randrange(len(chars))]
        elif op == 3:
            del chars[rng.randrange(len(chars) + 1):]
        elif op == 4:
            i = rng.randrange(len(chars) + 1)
            chars[i:i] = list(rng.choice(["99999999999", "18446744073709551616", "0", "00", "-1", "1e308", "nan"]))
    return "".join(chars)

CLASSES = {"bloom": bloomfilter.Bloom, "counting_bloom": bloomfilter.CountingBloom,
           "scalable_bloom": bloomfilter.ScalableBloom}
rng = random.Random(int(sys.argv[2]))
deadline = time.monotonic() + float(sys.argv[1])
tried = read = 0
while time.monotonic() < deadline:
    for _ in range(200):
        tried += 1
        if rng.random() < 0.5:
            text = mutate_text(rng, rng.choice(texts))
            try:
                f = bloomfilter.from_text(text)
            except bloomfilter.BloomError:
                continue
            assert f.to_text() == text, ("text does not read back", text)
        else:
            kind, data = rng.choice(binaries)
            data = mutate_bytes(rng, data)
            try:
                f = CLASSES[kind].from_binary(data)
            except bloomfilter.BloomError:
                continue
            assert CLASSES[kind].from_binary(f.to_binary()) == f, ("binary does not read back", data.hex())
        read += 1
        f.contains(42)
        f.cardinality()
print(f"ok {tried} inputs, {read} read")
'''


class Fuzz(unittest.TestCase):
    def test_decoders(self):
        """Random and mutated forms: only BloomError, no crash, no hang."""
        env = dict(os.environ)
        result = subprocess.run([sys.executable, "-c", CHILD, str(FUZZ_SECONDS), "46"],
                                capture_output=True, text=True, timeout=FUZZ_SECONDS * 4 + 30,
                                cwd=os.path.dirname(os.path.abspath(__file__)), env=env)
        self.assertEqual(result.returncode, 0, f"fuzz child failed (exit {result.returncode}):\n"
                                               f"{result.stdout[-2000:]}{result.stderr[-4000:]}")
        self.assertTrue(result.stdout.startswith("ok "), result.stdout)
        print("  fuzz: " + result.stdout.strip())

    def test_bad_arguments(self):
        """Arguments of the wrong kind or range: exceptions, never a crash."""
        import bloomfilter
        cases = [(bloomfilter.empty, (0.0, 10)), (bloomfilter.empty, (1.0, 10)), (bloomfilter.empty, (float("nan"), 10)),
                 (bloomfilter.empty, (0.01, 0)), (bloomfilter.empty, (1e-25, 10)), (bloomfilter.empty_mk, (0, 1)),
                 (bloomfilter.empty_mk, (10, 65)), (bloomfilter.empty_mk, (2**40, 1)),
                 (bloomfilter.ScalableBloom.empty, (0.01, 10, 3)), (bloomfilter.ScalableBloom.empty, (0.01, 0)),
                 (bloomfilter.ScalableBloom.empty, (0.01, 10, 2, 1.0)), (bloomfilter.expected_fpr, (10, 3, -1))]
        for fn, args in cases:
            with self.subTest(fn=fn.__name__, args=args), self.assertRaises(bloomfilter.BloomError):
                fn(*args)
        f = bloomfilter.empty(0.01, 10)
        for bad in (None, object(), [1], {1: 2}, "\ud800", "a\0b", 1j):
            with self.subTest(value=repr(bad)), self.assertRaises(bloomfilter.BloomError):
                f.add(bad)
        self.assertEqual(bloomfilter.value(1, "int2"), bloomfilter.value(1))
        for bad_type in ((2**15, "int2"), (1.0, "int8"), (True, "int8"), ("x", "bytea"),
                         (1e39, "float4"), (1e-50, "float4"), (0.5, "numeric"), (1, "nosuchtype")):
            with self.subTest(value=bad_type), self.assertRaises(bloomfilter.BloomError):
                bloomfilter.value(*bad_type)
        with self.assertRaises(TypeError):
            bloomfilter.from_text(b"bloom:")
        with self.assertRaises(bloomfilter.BloomError):
            f.add_many(__import__("array").array("u", "abc"))


if __name__ == "__main__":
    unittest.main()
