"""The Python client's benchmark (make bench, part "clients": bench/clients.sh).

    bench.py [--rounds N] [--no-server]

1. Per value: add and contains of int8 and of 16-byte text, in single calls
   and in batches, into a filter of 1,000,000 values at p = 0.01 (1.2 MB),
   beside Python's set; medians of N rounds (5) of 1,000,000 values.
2. The parameter case (with PGHOST): a 10,000,000-row table and a set of
   1,000,000 ids, WHERE bloom_contains($1, id) with the client's filter
   against WHERE id = ANY($1::int8[]): bytes sent and time, through psycopg
   (binary parameters) and asyncpg.
3. The local probe (with PGHOST): a stored 1,000,000-value filter fetched
   once and probed 1,000,000 times locally, against one query per probe
   (timed over 2,000 and given per probe) and one query for all probes.
"""
import argparse
import array
import asyncio
import os
import random
import statistics
import time

import bloomfilter

N = 1_000_000


def median_rate(fn, rounds, count):
    """Median over rounds of count / seconds of fn() (fn may prepare and return its own seconds)."""
    rates = []
    for _ in range(rounds):
        started = time.perf_counter()
        spent = fn()
        elapsed = spent if spent is not None else time.perf_counter() - started
        rates.append(count / elapsed)
    return statistics.median(rates)


def per_value(rounds):
    rng = random.Random(46)
    ints = [rng.randrange(-2**63, 2**63) for _ in range(N)]
    texts = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(16)) for _ in range(N)]
    absent_ints = [rng.randrange(-2**63, 2**63) for _ in range(N)]
    absent_texts = [t[::-1] for t in texts]
    rows = []
    for name, values, absent in (("int8", ints, absent_ints), ("text (16 bytes)", texts, absent_texts)):
        probes = values[: N // 2] + absent[: N // 2]
        full = bloomfilter.empty(0.01, N)
        full.add_many(values)
        full_set = set(values)

        def single_add():
            f = bloomfilter.empty(0.01, N)
            add = f.add
            started = time.perf_counter()
            for v in values:
                add(v)
            return time.perf_counter() - started

        def batch_add():
            f = bloomfilter.empty(0.01, N)
            started = time.perf_counter()
            f.add_many(values)
            return time.perf_counter() - started

        def single_contains():
            contains = full.contains
            for v in probes:
                contains(v)

        def batch_contains():
            full.contains_many(probes)

        def set_single_add():
            s = set()
            add = s.add
            started = time.perf_counter()
            for v in values:
                add(v)
            return time.perf_counter() - started

        def set_batch_add():
            s = set()
            started = time.perf_counter()
            s.update(values)
            return time.perf_counter() - started

        def set_single_contains():
            for v in probes:
                v in full_set

        def set_batch_contains():
            list(map(full_set.__contains__, probes))

        rows.append((name, "add, single calls", median_rate(single_add, rounds, N),
                     median_rate(set_single_add, rounds, N)))
        rows.append((name, "add, batch (add_many)", median_rate(batch_add, rounds, N),
                     median_rate(set_batch_add, rounds, N)))
        rows.append((name, "contains, single calls", median_rate(single_contains, rounds, N),
                     median_rate(set_single_contains, rounds, N)))
        rows.append((name, "contains, batch (contains_many)", median_rate(batch_contains, rounds, N),
                     median_rate(set_batch_contains, rounds, N)))
        if name == "int8":
            buffer = array.array("q", values)
            probe_buffer = array.array("q", probes)

            def buffer_add():
                f = bloomfilter.empty(0.01, N)
                started = time.perf_counter()
                f.add_many(buffer)
                return time.perf_counter() - started

            rows.append((name, "add, batch of array('q')", median_rate(buffer_add, rounds, N), None))
            rows.append((name, "contains, batch of array('q')",
                         median_rate(lambda: full.contains_many(probe_buffer) and None, rounds, N), None))
    print(f"per value: filter of {N:,} values at p = 0.01 ({bloomfilter.empty(0.01, N).nbytes:,} bytes),"
          f" {N:,} values per round, median of {rounds} rounds; probes half present")
    print(f"  {'values':16} {'operation':34} {'bloomfilter':>16} {'set':>16}")
    for name, op, rate, set_rate in rows:
        set_text = f"{set_rate / 1e6:10.2f} M/s" if set_rate else " " * 16
        print(f"  {name:16} {op:34} {rate / 1e6:12.2f} M/s {set_text}")


def parameter_case(rounds):
    import psycopg

    import bloomfilter.psycopg

    rows_total, ids_total = 10_000_000, 1_000_000
    conn = psycopg.connect(autocommit=True)
    conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    bloomfilter.psycopg.register_types(conn)
    exists = conn.execute("SELECT to_regclass('bench_client_rows') IS NOT NULL").fetchone()[0]
    if not exists:
        started = time.perf_counter()
        conn.execute("CREATE TABLE bench_client_rows AS SELECT i::int8 AS id"
                     f" FROM generate_series(1, {rows_total}) i")
        conn.execute("VACUUM ANALYZE bench_client_rows")
        print(f"  (created bench_client_rows, {rows_total:,} rows, in {time.perf_counter() - started:.0f}s)")
    rng = random.Random(7)
    # half of the ids in the table, half not
    ids = rng.sample(range(1, rows_total + 1), ids_total // 2) + \
        rng.sample(range(rows_total + 1, 4 * rows_total), ids_total // 2)
    started = time.perf_counter()
    f = bloomfilter.empty(0.01, ids_total)
    f.add_many(array.array("q", ids))
    build = time.perf_counter() - started
    ids_array = array.array("q", ids)

    def timed(query, param, binary=True):
        times = []
        result = None
        for _ in range(rounds):
            with conn.cursor(binary=binary) as cur:
                started = time.perf_counter()
                cur.execute(query, [param])
                result = cur.fetchone()[0]
                times.append(time.perf_counter() - started)
        return statistics.median(times), result

    bloom_seconds, bloom_rows = timed("SELECT count(*) FROM bench_client_rows WHERE bloom_contains(%b, id)", f)
    any_seconds, any_rows = timed("SELECT count(*) FROM bench_client_rows WHERE id = ANY(%b::int8[])", ids)
    # the bytes of each parameter as sent: the filter's binary form, the
    # int8[] array's binary form (a 20-byte header, then 4 + 8 bytes per element)
    bloom_bytes = len(f.to_binary())
    array_bytes = 20 + 12 * len(ids)
    array_text_bytes = len("{" + ",".join(map(str, ids)) + "}")
    print(f"parameter case: {rows_total:,}-row table, {ids_total:,} ids (half present), p = 0.01,"
          f" median of {rounds} rounds, psycopg 3 binary parameters")
    print(f"  client filter built in {build * 1000:.0f} ms (add_many of an array('q'))")
    print(f"  {'query':44} {'bytes sent':>12} {'time':>10} {'rows':>10}")
    print(f"  {'WHERE bloom_contains($1, id)':44} {bloom_bytes:12,} {bloom_seconds * 1000:8.0f} ms {bloom_rows:10,}")
    print(f"  {'WHERE id = ANY($1::int8[]) (binary array)':44} {array_bytes:12,} {any_seconds * 1000:8.0f} ms {any_rows:10,}")
    print(f"  {'  (the same array as text)':44} {array_text_bytes:12,}")
    print(f"  bytes: {array_bytes / bloom_bytes:.1f}x fewer (binary array), {array_text_bytes / bloom_bytes:.1f}x (text);"
          f" time: {any_seconds / bloom_seconds:.2f}x")
    asyncpg_case(rounds, f, ids)

    # the local probe: a stored filter fetched once, probed here
    conn.execute("DROP TABLE IF EXISTS bench_client_filters")
    conn.execute("CREATE TABLE bench_client_filters (id int PRIMARY KEY, f bloom)")
    conn.execute("INSERT INTO bench_client_filters SELECT 1, bloom_agg(i::int8, 0.01, 1000000)"
                 " FROM generate_series(1, 1000000) i")
    probes = array.array("q", [rng.randrange(1, 2_000_000) for _ in range(N)])
    started = time.perf_counter()
    stored = conn.execute("SELECT f FROM bench_client_filters WHERE id = 1", binary=True).fetchone()[0]
    fetch = time.perf_counter() - started
    started = time.perf_counter()
    local = stored.contains_many(probes)
    local_seconds = time.perf_counter() - started
    per_query = 2000
    started = time.perf_counter()
    with conn.cursor() as cur:
        for p in probes[:per_query]:
            cur.execute("SELECT bloom_contains(f, %s::int8) FROM bench_client_filters WHERE id = 1", [p])
            cur.fetchone()
    one_each = (time.perf_counter() - started) / per_query
    started = time.perf_counter()
    with conn.cursor(binary=True) as cur:
        cur.execute("SELECT array_agg(bloom_contains(f, x) ORDER BY i) FROM bench_client_filters,"
                    " unnest(%b::int8[]) WITH ORDINALITY u(x, i) WHERE id = 1", [list(probes)])
        server = cur.fetchone()[0]
    one_for_all = time.perf_counter() - started
    assert server == local, "the local answers differ from the server's"
    print(f"local probe: a stored filter of 1,000,000 values ({stored.nbytes + 16:,} bytes), {N:,} probes")
    print(f"  fetch once {fetch * 1000:.0f} ms, then probe locally {local_seconds * 1000:.0f} ms"
          f" ({N / local_seconds / 1e6:.1f} M/s); answers equal to the server's")
    print(f"  one query per probe: {one_each * 1e6:.0f} us each (over {per_query:,}), {one_each * N:.0f} s for {N:,}")
    print(f"  one query for all probes (an int8[] parameter): {one_for_all * 1000:.0f} ms")
    conn.execute("DROP TABLE bench_client_filters")
    conn.close()


def asyncpg_case(rounds, f, ids):
    try:
        import asyncpg
    except ImportError:
        print("  asyncpg: skipped (python3-asyncpg is not installed)")
        return
    import bloomfilter.asyncpg

    async def run():
        conn = await asyncpg.connect(host=os.environ["PGHOST"], port=os.environ.get("PGPORT", "5432"),
                                     user=os.environ.get("PGUSER"), database=os.environ.get("PGDATABASE"))
        await bloomfilter.asyncpg.register_types(conn)
        out = {}
        for name, query, param in (("bloom", "SELECT count(*) FROM bench_client_rows WHERE bloom_contains($1, id)", f),
                                   ("any", "SELECT count(*) FROM bench_client_rows WHERE id = ANY($1::int8[])", ids)):
            times = []
            for _ in range(rounds):
                started = time.perf_counter()
                count = await conn.fetchval(query, param)
                times.append(time.perf_counter() - started)
            out[name] = (statistics.median(times), count)
        await conn.close()
        return out

    out = asyncio.run(run())
    print(f"  asyncpg (binary): bloom_contains {out['bloom'][0] * 1000:.0f} ms ({out['bloom'][1]:,} rows),"
          f" = ANY {out['any'][0] * 1000:.0f} ms ({out['any'][1]:,} rows): {out['any'][0] / out['bloom'][0]:.2f}x")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-server", action="store_true")
    args = parser.parse_args()
    per_value(args.rounds)
    if not args.no_server and os.environ.get("PGHOST"):
        print()
        parameter_case(args.rounds)
    else:
        print("parameter case and local probe: skipped (no server: PGHOST is not set)")


if __name__ == "__main__":
    main()
