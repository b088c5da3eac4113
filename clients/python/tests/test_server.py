"""The client against a real server (make test's throwaway cluster, PGHOST).

Per SQL type, 10,000 random values and the edge cases: the client's filter
is byte for byte bloom_agg's, under both hash schemes, and contains answers
as bloom_contains for 100,000 probes.  Then the sizing grid and the
estimates.  Skips, saying so, without a server.
"""
import datetime
import decimal
import hashlib
import math
import os
import random
import struct
import unittest
import uuid
import zlib
import zoneinfo

import bloomfilter

try:
    import psycopg
except ImportError:  # the skip says why
    psycopg = None

VALUES = 10_000
PROBES = 100_000
conn = None


def setUpModule():
    global conn
    if psycopg is None:
        raise unittest.SkipTest("psycopg (python3-psycopg) is not installed")
    if not os.environ.get("PGHOST"):
        raise unittest.SkipTest("no server: PGHOST is not set (make test sets it)")
    conn = psycopg.connect(autocommit=True)
    conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    conn.execute("SET TimeZone = 'UTC'")


def tearDownModule():
    if conn is not None:
        conn.close()


# ---- values per SQL type: edge cases, then random ones ----

ZONES = [zoneinfo.ZoneInfo(z) for z in ("America/New_York", "Europe/Berlin", "Asia/Kolkata",
                                        "Australia/Lord_Howe", "Pacific/Kiritimati", "UTC")] + \
        [datetime.timezone(datetime.timedelta(hours=h, minutes=m)) for h, m in ((-8, 0), (5, 30), (14, 0), (-11, 0))]
ALPHABET = "abcXYZ019 _-\t\né€日本😀ßΩ\u0301\U0010fffd"


def random_text(rng, limit=24):
    return "".join(rng.choice(ALPHABET) if rng.random() < 0.7 else chr(rng.choice(
        [rng.randint(1, 0xD7FF), rng.randint(0xE000, 0x10FFFF)])) for _ in range(rng.randint(0, limit)))


def random_datetime(rng):
    return datetime.datetime.min + datetime.timedelta(microseconds=rng.randrange(
        (datetime.datetime.max - datetime.datetime.min) // datetime.timedelta(microseconds=1)))


def random_float(rng, single):
    if single:
        return struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0]
    return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]


def random_decimal(rng):
    r = rng.random()
    if r < 0.2:
        return decimal.Decimal(rng.randint(-2**63, 2**63 - 1)).quantize(decimal.Decimal(10) ** -rng.randint(0, 4))
    if r < 0.3:
        return decimal.Decimal(rng.randint(-10**40, 10**40))
    return decimal.Decimal(rng.randint(-10**18, 10**18)).scaleb(-rng.randint(1, 30))


EDGES = {
    "int2": [0, 1, -1, 42, 32767, -32768],
    "int4": [0, 42, -42, 2**31 - 1, -2**31],
    "int8": [0, 42, -1, 2**63 - 1, -2**63, 2**32, -2**32 - 1],
    "numeric": [decimal.Decimal(s) for s in ("42", "42.000", "-42.0", "0", "0.000", "-0.0", "1.50", "1.5",
                                             "0.001", "9223372036854775807", "-9223372036854775808",
                                             "9223372036854775808", "-9223372036854775809", "1E+20",
                                             "NaN", "Infinity", "-Infinity", "1E-20", "123.4500")],
    "float4": [0.0, -0.0, 1.5, float("nan"), float("inf"), float("-inf"), 3.4028234663852886e38, 1e-45, 42.0],
    "float8": [0.0, -0.0, 42.0, 0.1, float("nan"), float("inf"), float("-inf"), 1.7976931348623157e308,
               5e-324, -2.2250738585072014e-308, 9007199254740993.0],
    "text": ["", "a", "42", "héllo", "日本語", "😀", "ab  ", " lead", "ß", "x" * 300],
    "varchar": ["", "apple", "ab  ", "héllo"],
    "bpchar": ["", "ab", "ab  ", "  ", "héllo   ", "a b "],
    "name": ["", "apple", "héllo", "x" * 63, "y" * 64, "é" * 40],
    "bytea": [b"", b"\0", b"\xde\xad\xbe\xef", bytes(range(256))],
    "uuid": [uuid.UUID(int=0), uuid.UUID(int=2**128 - 1)],
    "date": [datetime.date(2000, 1, 1), datetime.date(1999, 12, 31), datetime.date(1970, 1, 1),
             datetime.date(1, 1, 1), datetime.date(9999, 12, 31), datetime.date(1900, 2, 28)],
    "timestamp": [datetime.datetime(2000, 1, 1), datetime.datetime(1999, 12, 31, 23, 59, 59, 999999),
                  datetime.datetime.min, datetime.datetime.max, datetime.datetime(1969, 7, 20, 20, 17, 40, 1)],
    "timestamptz": [datetime.datetime(2000, 1, 1, tzinfo=z) for z in ZONES] +
                   [datetime.datetime(2024, 3, 10, 2, 30, tzinfo=ZONES[0]),
                    datetime.datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=ZONES[1]),
                    datetime.datetime(1950, 6, 1, 12, tzinfo=ZONES[2])],
    "bool": [True, False],
}

GENERATE = {
    "int2": lambda r: r.randint(-32768, 32767),
    "int4": lambda r: r.randint(-2**31, 2**31 - 1),
    "int8": lambda r: r.randint(-2**63, 2**63 - 1) if r.random() < 0.5 else r.randint(-10**6, 10**6),
    "numeric": random_decimal,
    "float4": lambda r: random_float(r, True),
    "float8": lambda r: random_float(r, False) if r.random() < 0.7 else float(r.randint(-10**6, 10**6)),
    "text": random_text,
    "varchar": random_text,
    "bpchar": lambda r: random_text(r) + " " * r.choice((0, 0, 1, 3)),
    "name": lambda r: random_text(r, 40),
    "bytea": lambda r: r.randbytes(r.randint(0, 40)),
    "uuid": lambda r: uuid.UUID(int=r.getrandbits(128)),
    "date": lambda r: datetime.date.fromordinal(r.randint(1, datetime.date.max.toordinal())),
    "timestamp": random_datetime,
    "timestamptz": lambda r: (datetime.datetime(2, 1, 1) + (random_datetime(r) - datetime.datetime.min) * 0.999)
    .replace(tzinfo=r.choice(ZONES)),
    "bool": lambda r: r.random() < 0.5,
}

# How a Python list reaches the server as an array of the type.
ARRAY = {t: f"%s::{t}[]" for t in GENERATE}
ARRAY.update({"float4": "%s::float8[]::float4[]", "varchar": "%s::text[]::varchar[]",
              "bpchar": "%s::text[]::bpchar[]", "name": "%s::text[]::name[]"})
REPORT = []


def blocked_template(m, k):
    return bloomfilter.Bloom.from_binary(bytes([1, 2, k, 0]) + m.to_bytes(8, "big") + bytes(m // 8))


class ValuesEqualServer(unittest.TestCase):
    """Per type: bloom_agg's bytes under both schemes, and 100,000 probes answered alike."""

    def check(self, sqltype):
        rng = random.Random(zlib.crc32(sqltype.encode()))
        values = EDGES[sqltype] + [GENERATE[sqltype](rng) for _ in range(VALUES - len(EDGES[sqltype]))]
        absent = [GENERATE[sqltype](rng) for _ in range(PROBES - len(values))]
        probes = values + absent
        encoded = [bloomfilter.value(v, sqltype) for v in values]
        probes_encoded = encoded + [bloomfilter.value(v, sqltype) for v in absent]
        array = ARRAY[sqltype]
        equal = 0

        # hash scheme 1: bloom_agg(x, p, n)
        f = bloomfilter.empty(0.01, VALUES)
        f.add_many(encoded)
        server = conn.execute(f"SELECT bloom_send(bloom_agg(x, 0.01, {VALUES})) FROM unnest({array}) x",
                              [values]).fetchone()[0]
        self.assertEqual(f.to_binary(), server, f"{sqltype}: bloom_agg(x, 0.01, {VALUES}) differs")
        equal += 1
        # hash scheme 2: bloom_agg_like into a blocked template, and bloom_agg of a 2.4 MB filter
        g = blocked_template(65536, 6)
        template = g.to_text()
        g.add_many(encoded)
        server = conn.execute(f"SELECT bloom_send(bloom_agg_like(x, %s::bloom)) FROM unnest({array}) x",
                              [template, values]).fetchone()[0]
        self.assertEqual(g.to_binary(), server, f"{sqltype}: bloom_agg_like(x, blocked) differs")
        big = bloomfilter.empty(0.01, 2_000_000)
        self.assertEqual(big.hash_scheme, 2)
        big.add_many(encoded)
        server = conn.execute(f"SELECT sha256(bloom_send(bloom_agg(x, 0.01, 2000000))) FROM unnest({array}) x",
                              [values]).fetchone()[0]
        self.assertEqual(hashlib.sha256(big.to_binary()).digest(), server,
                         f"{sqltype}: bloom_agg(x, 0.01, 2000000) differs")
        # the default Python type agrees where it stands for the SQL type
        if sqltype in ("int8", "numeric", "float8", "text", "bytea", "uuid", "date", "timestamp",
                       "timestamptz", "bool"):
            h = bloomfilter.empty(0.01, VALUES)
            h.add_many(values)
            self.assertEqual(h, f, f"{sqltype}: the Python values without a type name hash otherwise")

        # 100,000 probes in each filter
        for name, filt in (("scheme 1", f), ("scheme 2", g)):
            answers = conn.execute(
                f"SELECT array_agg(bloom_contains(%s::bloom, x) ORDER BY i) FROM unnest({array}) WITH ORDINALITY u(x, i)",
                [filt.to_text(), probes]).fetchone()[0]
            mine = filt.contains_many(probes_encoded)
            differ = sum(a != b for a, b in zip(mine, answers))
            self.assertEqual(len(answers), PROBES)
            self.assertEqual(differ, 0, f"{sqltype} {name}: {differ} of {PROBES} probes answered otherwise")
            self.assertTrue(all(mine[:len(values)]), "a false negative")
            REPORT.append(f"{sqltype:12} {name}: {len(values)} values, filter equal; {PROBES - differ}/{PROBES}"
                          f" probes equal ({sum(answers[len(values):])} of the other {PROBES - len(values)} probes"
                          " positive: false positives, or values equal to added ones, as bool and int2 must be)")
        REPORT.append(f"{sqltype:12} bloom_agg(x, 0.01, 2000000) (scheme 2, 2.4 MB): equal")

    def test_numeric_as_int(self):
        """42 and Decimal('42.000') are one value to a filter, as 42::int8 and 42.000::numeric are."""
        f = bloomfilter.empty(0.01, 100)
        f.add(42)
        self.assertIn(decimal.Decimal("42.000"), f)
        self.assertTrue(conn.execute("SELECT bloom_contains(%s::bloom, 42.000::numeric)", [f.to_text()]).fetchone()[0])


for _t in GENERATE:
    setattr(ValuesEqualServer, f"test_{_t}", lambda self, t=_t: self.check(t))


class SizingEqualServer(unittest.TestCase):
    def test_grid(self):
        """empty(p, n) has bloom_optimal(p, n)'s m, k and scheme over p in 1e-9..0.5, n in 1..1e9."""
        ps = [10 ** (-9 + 8.7 * i / 39) for i in range(40)] + [0.5, 0.01, 0.001, 1e-6]
        ns = sorted({int(round(10 ** (9 * i / 39))) for i in range(40)} | {1, 2, 3, 10**9, 999_999_999, 12345})
        cases = errors = 0
        with conn.cursor() as cur:
            for p in ps:
                for n in ns:
                    try:
                        cur.execute("SELECT m, k, hash_scheme FROM bloom_optimal(%s, %s)", [p, n])
                        server = cur.fetchone()
                    except psycopg.Error as e:
                        with self.assertRaises(bloomfilter.BloomError, msg=(p, n)) as caught:
                            bloomfilter.optimal(p, n)
                        self.assertEqual(caught.exception.sqlstate, e.sqlstate)
                        errors += 1
                        continue
                    o = bloomfilter.optimal(p, n)
                    self.assertEqual((o.m, o.k, o.hash_scheme), server, (p, n))
                    cases += 1
        REPORT.append(f"sizing grid: {len(ps)} rates x {len(ns)} capacities: {cases} shapes equal, "
                      f"{errors} errors equal")


class EstimatesEqualServer(unittest.TestCase):
    def test_estimates(self):
        """cardinality, false-positive rate, union, intersection, Jaccard: the server's doubles."""
        rng = random.Random(7)
        checked = 0
        for _ in range(30):
            p = rng.choice([0.001, 0.01, 0.1, 0.3])
            n = rng.choice([10, 100, 1000, 5000])
            scheme2 = rng.random() < 0.3
            a = blocked_template(8192, 5) if scheme2 else bloomfilter.empty(p, n)
            b = a.empty_like()
            a.add_many([rng.randint(0, 3 * n) for _ in range(rng.randint(0, 2 * n))])
            b.add_many([rng.randint(0, 3 * n) for _ in range(rng.randint(0, 2 * n))])
            row = conn.execute(
                "SELECT bloom_cardinality(a), (bloom_info(a)).false_positive_rate, bloom_union_cardinality(a, b),"
                " bloom_intersection_cardinality(a, b), bloom_jaccard(a, b), (bloom_info(a)).fill_ratio"
                " FROM (SELECT %s::bloom a, %s::bloom b) x", [a.to_text(), b.to_text()]).fetchone()
            mine = (a.cardinality(), a.false_positive_rate(), a.union_cardinality(b),
                    a.intersection_cardinality(b), a.jaccard(b), a.info().fill_ratio)
            for x, y in zip(mine, row):
                self.assertTrue(x == y or (math.isnan(x) and math.isnan(y)), (mine, row))
            checked += 1
        REPORT.append(f"estimates: {checked} filter pairs, 6 estimates each, equal to the last digit")


class ZZReport(unittest.TestCase):
    def test_report(self):
        """Prints what the tests above compared (for the record; asserts that they ran)."""
        if not REPORT:
            self.skipTest("no comparison ran")
        for line in REPORT:
            print("  " + line)


if __name__ == "__main__":
    unittest.main()
