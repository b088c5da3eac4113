"""The drivers: a filter is a parameter and a column, with no cast, in text and binary.

For psycopg 3 (text and binary, sync and async), psycopg2 (text) and asyncpg
(binary and text), each of bloom, counting_bloom and scalable_bloom: a
parameter the server reads as the same value (its bloom_send, and
bloom_contains through it), a column read back equal.  Skips, saying so,
without a server or a driver.
"""
import asyncio
import os
import unittest

import bloomfilter

NEEDS_SERVER = "no server: PGHOST is not set (make test sets it)"


def filters():
    """One filter of each type, non-ASCII text among the values (so the flag travels too)."""
    b = bloomfilter.empty(0.01, 1000)
    b.add_many(list(range(500)) + ["héllo"])
    c = bloomfilter.CountingBloom.empty(0.01, 100)
    c.add_many([1, 2, 2, 3, "héllo"])
    s = bloomfilter.ScalableBloom.empty(0.01, 10)
    s.add_many(list(range(100)) + ["héllo"])
    return {"bloom": b, "counting_bloom": c, "scalable_bloom": s}


SEND = {"bloom": "bloom_send", "counting_bloom": "counting_bloom_send", "scalable_bloom": "scalable_bloom_send"}


def setUpModule():
    if not os.environ.get("PGHOST"):
        raise unittest.SkipTest(NEEDS_SERVER)


class Psycopg(unittest.TestCase):
    def setUp(self):
        try:
            import psycopg
        except ImportError:
            self.skipTest("psycopg 3 (python3-psycopg) is not installed")
        import bloomfilter.psycopg
        self.conn = psycopg.connect(autocommit=True)
        self.conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
        bloomfilter.psycopg.register_types(self.conn)

    def tearDown(self):
        self.conn.close()

    def test_parameter_and_column(self):
        for binary in (False, True):
            placeholder = "%b" if binary else "%t"
            for name, f in filters().items():
                with self.subTest(binary=binary, type=name), self.conn.cursor(binary=binary) as cur:
                    cur.execute(f"SELECT {SEND[name]}({placeholder}), {placeholder}, bloom_contains({placeholder}, 2),"
                                f" bloom_contains({placeholder}, 'héllo'::text), pg_typeof({placeholder})::text",
                                [f] * 5)
                    sent, column, has_2, has_text, sqltype = cur.fetchone()
                    self.assertEqual(bytes(sent), f.to_binary())
                    self.assertIsInstance(column, type(f))
                    self.assertEqual(column.to_binary(), f.to_binary())
                    self.assertEqual((has_2, has_text, sqltype), (True, True, name))

    def test_table(self):
        f = filters()
        self.conn.execute("CREATE TEMP TABLE t (b bloom, c counting_bloom, s scalable_bloom)")
        self.conn.execute("INSERT INTO t VALUES (%s, %s, %s), (%t, %t, %t)",
                          [f["bloom"], f["counting_bloom"], f["scalable_bloom"]] * 2)
        for binary in (False, True):
            with self.conn.cursor(binary=binary) as cur:
                cur.execute("SELECT b, c, s FROM t")
                for row in cur.fetchall():
                    self.assertEqual(list(row), [f["bloom"], f["counting_bloom"], f["scalable_bloom"]])
        self.assertIsNone(self.conn.execute("SELECT NULL::bloom").fetchone()[0])

    def test_async(self):
        import psycopg
        import bloomfilter.psycopg

        async def run():
            conn = await psycopg.AsyncConnection.connect(autocommit=True)
            await bloomfilter.psycopg.register_types_async(conn)
            f = filters()["bloom"]
            cur = await conn.execute("SELECT %s, bloom_contains(%s, 499)", [f, f])
            row = await cur.fetchone()
            await conn.close()
            return row

        column, contains = asyncio.run(run())
        self.assertEqual(column, filters()["bloom"])
        self.assertTrue(contains)


class Psycopg2(unittest.TestCase):
    def setUp(self):
        try:
            import psycopg2
        except ImportError:
            self.skipTest("psycopg2 (python3-psycopg2) is not installed")
        import bloomfilter.psycopg2
        self.conn = psycopg2.connect("")
        self.conn.autocommit = True
        self.conn.cursor().execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
        bloomfilter.psycopg2.register_types(self.conn)

    def tearDown(self):
        self.conn.close()

    def test_parameter_and_column(self):
        cur = self.conn.cursor()
        for name, f in filters().items():
            with self.subTest(type=name):
                cur.execute(f"SELECT {SEND[name]}(%s), %s, bloom_contains(%s, 2), bloom_contains(%s, 'héllo'::text),"
                            " pg_typeof(%s)::text", [f] * 5)
                sent, column, has_2, has_text, sqltype = cur.fetchone()
                self.assertEqual(bytes(sent), f.to_binary())
                self.assertEqual(column, f)
                self.assertEqual((has_2, has_text, sqltype), (True, True, name))
        cur.execute("CREATE TEMP TABLE t (b bloom)")
        cur.execute("INSERT INTO t VALUES (%s), (NULL)", [filters()["bloom"]])
        cur.execute("SELECT b FROM t ORDER BY b IS NULL")
        self.assertEqual([r[0] for r in cur.fetchall()], [filters()["bloom"], None])


class Asyncpg(unittest.TestCase):
    def setUp(self):
        try:
            import asyncpg  # noqa: F401
        except ImportError:
            self.skipTest("asyncpg (python3-asyncpg) is not installed")

    def run_format(self, format):
        import asyncpg
        import bloomfilter.asyncpg

        async def run():
            host = os.environ["PGHOST"]
            conn = await asyncpg.connect(host=host, port=os.environ.get("PGPORT", "5432"),
                                         user=os.environ.get("PGUSER"), database=os.environ.get("PGDATABASE"))
            try:
                await conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
                await bloomfilter.asyncpg.register_types(conn, format=format)
                results = {}
                for name, f in filters().items():
                    results[name] = (f, await conn.fetchrow(
                        f"SELECT {SEND[name]}($1), $1 AS col, bloom_contains($1, 2), pg_typeof($1)::text", f))
                await conn.execute("CREATE TEMP TABLE t (b bloom)")
                await conn.execute("INSERT INTO t VALUES ($1)", filters()["bloom"])
                results["table"] = (filters()["bloom"], await conn.fetchval("SELECT b FROM t"))
                return results
            finally:
                await conn.close()

        results = asyncio.run(run())
        for name, (f, row) in results.items():
            if name == "table":
                self.assertEqual(row, f)
                continue
            self.assertEqual(bytes(row[0]), f.to_binary(), name)
            self.assertEqual(row[1], f)
            self.assertEqual((row[2], row[3]), (True, name))

    def test_binary(self):
        self.run_format("binary")

    def test_text(self):
        self.run_format("text")


if __name__ == "__main__":
    unittest.main()
