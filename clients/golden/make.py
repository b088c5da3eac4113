#!/usr/bin/python3
"""Write clients/golden/golden.json from a real server: the golden vectors
the Python and the JavaScript clients are tested against.

    test/pg_cluster.sh build/inst /usr/bin/python3 clients/golden/make.py [OUT]

Connects with libpq's environment (PGHOST, PGPORT, ...), creates the
extension if needed, and asks the server for everything: nobody writes an
expected byte by hand.  The values are drawn from a fixed seed, so a second
run writes the same file (a diff means the server's answers changed, which
the on-disk promise forbids).  clients/golden/README.md describes the file.
"""
import base64
import json
import random
import sys

import psycopg

FORMAT = "bloomfilter-golden/1"
SEED = 46
RANDOM_PER_TYPE = 100

# Edge cases per SQL type, as SQL literals (the server parses them; the
# file records the server's own text output of each).
EDGES = {
    "int2": ["0", "1", "-1", "42", "32767", "-32768"],
    "int4": ["0", "42", "-42", "2147483647", "-2147483648"],
    "int8": ["0", "42", "-1", "9223372036854775807", "-9223372036854775808",
             "4294967296", "-4294967297"],
    "numeric": ["42", "42.000", "-42.0", "0", "0.000", "-0.0", "1.50", "1.5",
                "0.001", "-0.000001", "9223372036854775807", "-9223372036854775808",
                "9223372036854775808", "-9223372036854775809",
                "100000000000000000000", "123456789012345678901234567890.123456789",
                "1e-20", "NaN", "Infinity", "-Infinity", "3.14159265358979323846"],
    "float4": ["0", "-0", "1.5", "0.1", "NaN", "Infinity", "-Infinity",
               "3.4028235e38", "1e-45", "-1.17549435e-38", "42"],
    "float8": ["0", "-0", "42", "0.1", "NaN", "Infinity", "-Infinity",
               "1.7976931348623157e308", "5e-324", "2.2250738585072014e-308",
               "-1e-300", "9007199254740993", "3.141592653589793"],
    "text": ["", "a", "apple", "42", "héllo", "日本語", "emoji 😀", "ab  ",
             " lead", "tab\tnewline\n", "ß", "x" * 200, "Ω" * 70],
    "varchar": ["", "apple", "ab  ", "héllo"],
    "bpchar": ["", "ab", "ab  ", "  ", "héllo   ", "a b "],
    "name": ["", "apple", "héllo", "x" * 63],
    "bytea": ["\\x", "\\x00", "\\xdeadbeef", "\\x" + "ff" * 40, "\\x68c3a96c6c6f"],
    "uuid": ["00000000-0000-0000-0000-000000000000",
             "ffffffff-ffff-ffff-ffff-ffffffffffff",
             "123e4567-e89b-12d3-a456-426614174000"],
    "date": ["2000-01-01", "1999-12-31", "1970-01-01", "0001-01-01", "9999-12-31",
             "1900-02-28", "2024-02-29"],
    "timestamp": ["2000-01-01 00:00:00", "1999-12-31 23:59:59.999999",
                  "1970-01-01 00:00:00", "0001-01-01 00:00:00",
                  "9999-12-31 23:59:59.999999", "2024-02-29 12:34:56.5",
                  "1969-07-20 20:17:40.000001"],
    "timestamptz": ["2000-01-01 00:00:00+00", "2000-01-01 00:00:00-08",
                    "1999-12-31 23:59:59.999999+05:30", "2024-03-10 02:30:00 America/New_York",
                    "2024-10-27 02:30:00 Europe/Berlin", "1950-06-01 12:00:00 Asia/Kolkata",
                    "0001-01-01 00:00:00+00", "2024-06-30 23:59:59.123456+14"],
    "bool": ["true", "false"],
}


def random_literal(rng, sqltype):
    """A random SQL literal of the type."""
    r = rng.random()
    if sqltype == "int2":
        return str(rng.randint(-32768, 32767))
    if sqltype == "int4":
        return str(rng.randint(-2**31, 2**31 - 1))
    if sqltype == "int8":
        return str(rng.randint(-2**63, 2**63 - 1) if r < 0.5 else rng.randint(-10**6, 10**6))
    if sqltype == "numeric":
        if r < 0.3:
            return str(rng.randint(-10**30, 10**30))
        scale = rng.randint(1, 12)
        digits = rng.randint(-10**15, 10**15)
        s = str(abs(digits)).rjust(scale + 1, "0")
        return ("-" if digits < 0 else "") + s[:-scale] + "." + s[-scale:]
    if sqltype in ("float4", "float8"):
        if r < 0.3:
            return str(rng.randint(-10**6, 10**6))
        if r < 0.6:
            return repr(rng.uniform(-1e6, 1e6))
        return repr(rng.choice([-1, 1]) * 10 ** rng.uniform(-300 if sqltype == "float8" else -37,
                                                              300 if sqltype == "float8" else 37))
    if sqltype in ("text", "varchar", "name", "bpchar"):
        alphabet = "abcXYZ019 _-é€日😀ßΩ\t"
        length = rng.randint(0, 20 if sqltype != "name" else 15)
        s = "".join(rng.choice(alphabet) for _ in range(length))
        if sqltype == "bpchar" and r < 0.5:
            s += " " * rng.randint(1, 3)
        return s
    if sqltype == "bytea":
        return "\\x" + bytes(rng.randrange(256) for _ in range(rng.randint(0, 24))).hex()
    if sqltype == "uuid":
        return "%032x" % rng.getrandbits(128)
    if sqltype == "date":
        return "%04d-%02d-%02d" % (rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 28))
    if sqltype in ("timestamp", "timestamptz"):
        s = "%04d-%02d-%02d %02d:%02d:%02d.%06d" % (
            rng.randint(1, 9998), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
            rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999))
        if sqltype == "timestamptz":
            s += rng.choice(["+00", "-08", "+05:30", "+14", "-11", " Europe/Paris", " America/Sao_Paulo"])
        return s
    if sqltype == "bool":
        return rng.choice(["true", "false"])
    raise ValueError(sqltype)


def values_of(cur, sqltype, literals):
    """Server text output, hash (h1, h2 hex) and flags of each literal."""
    cur.execute(
        "SELECT x::text, bloom_value(x)::text FROM unnest(%s::text[]) WITH ORDINALITY u(s, i),"
        f" LATERAL (SELECT s::{sqltype} AS x) l ORDER BY i", [literals])
    out = []
    for text, hashed in cur.fetchall():
        raw = bytes.fromhex(hashed.split(":", 1)[1])
        out.append({"value": text,
                    "h1": raw[3:11][::-1].hex(), "h2": raw[11:19][::-1].hex(),
                    "flags": raw[1]})
    return out


def fetch_one(cur, sql, params=()):
    cur.execute(sql, params)
    return cur.fetchone()


def info_of(cur, filter_sql, params):
    row = fetch_one(cur, "SELECT m, k, bytes, bits_set, fill_ratio::text, estimated_cardinality::text,"
                         f" false_positive_rate::text FROM bloom_info(({filter_sql}))", params)
    return dict(zip(["m", "k", "bytes", "bits_set", "fill_ratio", "estimated_cardinality",
                     "false_positive_rate"], row))


def error_of(conn, sql, params=()):
    """The server's error (sqlstate, message, detail) for sql, or None."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql, params)
            cur.fetchall()
        return None
    except psycopg.Error as e:
        conn.rollback()
        return {"sqlstate": e.sqlstate, "message": e.diag.message_primary,
                "detail": e.diag.message_detail}


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else __file__.rsplit("/", 1)[0] + "/golden.json"
    rng = random.Random(SEED)
    conn = psycopg.connect(autocommit=False)
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    cur.execute("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET extra_float_digits = 1;"
                " SET IntervalStyle = 'postgres'; SET bytea_output = 'hex'")
    server = fetch_one(cur, "SELECT current_setting('server_version'),"
                            " (SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter')")
    golden = {"format": FORMAT, "server_version": server[0], "extension_version": server[1],
              "session": {"TimeZone": "UTC", "DateStyle": "ISO, YMD", "extra_float_digits": 1},
              "types": {}, "filters": [], "counting": [], "scalable": [], "optimal": [],
              "expected_fpr": [], "pairs": [], "forms": []}

    # ---- values: canonical hash of each, then filters of them ----
    # scheme 2 filters small enough to keep whole: bloom_agg_like over an empty
    # blocked template (bloom_agg builds scheme 2 only from 2 MiB on; "large" below)
    h2_template = "bloom:v1:h2:m4096:k7:" + base64.b64encode(bytes(4096 // 8)).decode()
    for sqltype, edges in EDGES.items():
        literals = list(edges) + [random_literal(rng, sqltype) for _ in range(RANDOM_PER_TYPE)]
        values = values_of(cur, sqltype, literals)
        golden["types"][sqltype] = values
        texts = [v["value"] for v in values]
        # absent probes: more random values of the type, not among the added ones
        absent = [s for s in (random_literal(rng, sqltype) for _ in range(200)) if s not in literals]
        probe_texts = [v["value"] for v in values_of(cur, sqltype, absent)]
        for scheme, shape in [(1, {"p": 0.01, "n": len(texts)}), (1, {"p": 0.3, "n": 10}),
                              (2, {"template": h2_template})]:
            if scheme == 1:
                agg = "bloom_agg(x, %s, %s)"
                params = [shape["p"], shape["n"]]
            else:
                agg = "bloom_agg_like(x, %s::bloom)"
                params = [h2_template]
            agg = (f"SELECT {agg} FROM unnest(%s::text[]) s, LATERAL (SELECT s::{sqltype} AS x) l")
            text, send = fetch_one(cur, f"SELECT f::text, encode(bloom_send(f), 'hex') FROM ({agg}) a(f)",
                                   params + [texts])
            probes = texts + probe_texts
            cur.execute(f"SELECT bloom_contains(%s::bloom, s::{sqltype}) FROM unnest(%s::text[])"
                        " WITH ORDINALITY u(s, i) ORDER BY i", [text, probes])
            answers = [r[0] for r in cur.fetchall()]
            entry = {"type": sqltype, "values": texts, "hash_scheme": scheme, "text": text, "send": send,
                     "info": info_of(cur, "SELECT %s::bloom", [text]),
                     "probes": [{"value": v, "contains": a} for v, a in zip(probes, answers)]}
            entry.update(shape)
            golden["filters"].append(entry)

    # ---- a large blocked filter from bloom_agg itself (only its digest: 2.4 MB) ----
    row = fetch_one(cur, "SELECT encode(sha256(bloom_send(f)), 'hex'), (bloom_info(f)).m, (bloom_info(f)).k,"
                         " (bloom_info(f)).bits_set, bloom_cardinality(f)::text"
                         " FROM (SELECT bloom_agg(i, 0.01, 2000000) f FROM generate_series(1, 1000) i) a")
    golden["large"] = [{"type": "int8", "values": "generate_series(1, 1000)", "p": 0.01, "n": 2000000,
                        "send_sha256": row[0], "m": row[1], "k": row[2], "bits_set": row[3],
                        "estimated_cardinality": row[4]}]

    # ---- sizing: bloom_optimal over a grid ----
    ps = ["1e-09", "1e-08", "1e-07", "1e-06", "1e-05", "0.0001", "0.001", "0.005", "0.01", "0.02",
          "0.05", "0.1", "0.2", "0.25", "0.3", "0.4", "0.5", "0.123456789", "1e-19", "1e-20"]
    ns = [1, 2, 3, 7, 10, 100, 1000, 12345, 10000, 100000, 1000000, 2000000, 5000000, 10000000,
          100000000, 999999999, 1000000000]
    for p in ps:
        for n in ns:
            sql = "SELECT m, k, bytes, bits_per_item::text, hash_scheme FROM bloom_optimal(%s::float8, %s)"
            err = error_of(conn, sql, [p, n])
            entry = {"p": p, "n": n}
            if err:
                entry["error"] = err
            else:
                with conn.cursor() as c:
                    m, k, nbytes, bpi, scheme = fetch_one(c, sql, [p, n])
                entry.update({"m": m, "k": k, "bytes": nbytes, "bits_per_item": bpi, "hash_scheme": scheme})
            golden["optimal"].append(entry)
    cur = conn.cursor()
    for p, n in [("0", 10), ("1", 10), ("NaN", 10), ("Infinity", 10), ("-0.5", 10), ("0.01", 0),
                 ("0.01", -5)]:
        golden["optimal"].append({"p": p, "n": n, "error": error_of(
            conn, "SELECT * FROM bloom_optimal(%s::float8, %s)", [p, n])})
    cur = conn.cursor()
    for m, k in [(1, 1), (18, 3), (9586, 7), (8589934400, 64), (0, 3), (18, 0), (18, 65),
                 (8589934401, 1)]:
        err = error_of(conn, "SELECT bloom_empty_mk(%s, %s)", [m, k])
        entry = {"m": m, "k": k}
        if err:
            entry["error"] = err
        elif m < 100000:
            cur = conn.cursor()
            entry["text"] = fetch_one(cur, "SELECT bloom_empty_mk(%s, %s)::text", [m, k])[0]
        golden.setdefault("empty_mk", []).append(entry)
    cur = conn.cursor()

    # ---- bloom_expected_fpr ----
    for m, k, n in [(9585059, 7, 2000000), (9586, 7, 1000), (1, 1, 0), (1, 1, 1), (100, 3, 0),
                    (1000000, 20, 123456), (64, 64, 1000), (8589934400, 1, 10**12)]:
        c, g = fetch_one(cur, "SELECT classic::text, goel_gupta_bound::text FROM bloom_expected_fpr(%s, %s, %s)",
                         [m, k, n])
        golden["expected_fpr"].append({"m": m, "k": k, "n": n, "classic": c, "goel_gupta_bound": g})

    # ---- two-filter estimates ----
    for a, b, p, n in [((1, 1000), (501, 1500), 0.01, 2000), ((1, 10), (11, 20), 0.01, 100),
                       ((1, 500), (1, 500), 0.05, 500), ((1, 5000), (2000, 9000), 0.01, 100),
                       ((1, 0), (1, 0), 0.01, 10)]:
        fa = f"(SELECT coalesce(bloom_agg(i, {p}, {n}), bloom_empty({p}, {n})) FROM generate_series({a[0]}, {a[1]}) i)"
        fb = f"(SELECT coalesce(bloom_agg(i, {p}, {n}), bloom_empty({p}, {n})) FROM generate_series({b[0]}, {b[1]}) i)"
        row = fetch_one(cur, f"SELECT {fa}::text, {fb}::text, bloom_union_cardinality({fa}, {fb})::text,"
                             f" bloom_intersection_cardinality({fa}, {fb})::text, bloom_jaccard({fa}, {fb})::text,"
                             f" ({fa} | {fb})::text, ({fa} & {fb})::text, {fa} = {fb}")
        golden["pairs"].append(dict(zip(["a", "b", "union_cardinality", "intersection_cardinality", "jaccard",
                                         "union", "intersection", "equal"], row)))
    # a saturated filter
    row = fetch_one(cur, "SELECT f::text FROM (SELECT bloom_agg(i, 0.5, 1) f FROM generate_series(1, 200) i) a")
    golden["saturated"] = {"text": row[0], "info": info_of(cur, "SELECT %s::bloom", [row[0]])}

    # ---- counting filters ----
    for p, n, vals in [(0.01, 100, list(range(1, 51)) + list(range(1, 11))), (0.1, 10, [7] * 20),
                       (0.01, 1000, list(range(-500, 500)))]:
        text, send = fetch_one(cur, "SELECT f::text, encode(counting_bloom_send(f), 'hex') FROM"
                                    " (SELECT counting_bloom_agg(v, %s, %s) f FROM unnest(%s::int8[]) v) a",
                               [p, n, vals])
        probes = list(range(-600, 1200, 7))
        cur.execute("SELECT bloom_contains(%s::counting_bloom, v) FROM unnest(%s::int8[]) WITH ORDINALITY u(v, i)"
                    " ORDER BY i", [text, probes])
        answers = [r[0] for r in cur.fetchall()]
        golden["counting"].append({"type": "int8", "values": [str(v) for v in vals], "p": p, "n": n,
                                   "text": text, "send": send,
                                   "bloom": fetch_one(cur, "SELECT bloom(%s::counting_bloom)::text", [text])[0],
                                   "probes": [{"value": str(v), "contains": a} for v, a in zip(probes, answers)]})

    # ---- scalable filters ----
    for args, vals, sqltype in [("0.01, 10", [str(i) for i in range(1, 101)], "int8"),
                                ("0.05, 4, 4, 0.5", [str(i) for i in range(1, 301)], "int8"),
                                ("0.01, 100", ["apple", "pear", "héllo", ""], "text")]:
        text, send = fetch_one(cur, f"SELECT f::text, encode(scalable_bloom_send(f), 'hex') FROM"
                                    f" (SELECT bloom_add_all(scalable_bloom_empty({args}), %s::{sqltype}[])) a(f)",
                               [vals])
        probes = vals + ([str(i) for i in range(1000, 1400)] if sqltype == "int8" else ["apples", "x", " "])
        cur.execute(f"SELECT bloom_contains(%s::scalable_bloom, v) FROM unnest(%s::{sqltype}[]) WITH ORDINALITY u(v, i)"
                    " ORDER BY i", [text, probes])
        answers = [r[0] for r in cur.fetchall()]
        card = fetch_one(cur, "SELECT bloom_cardinality(%s::scalable_bloom)::text", [text])[0]
        golden["scalable"].append({"type": sqltype, "empty": f"scalable_bloom_empty({args})", "values": vals,
                                   "text": text, "send": send, "cardinality": card,
                                   "probes": [{"value": v, "contains": a} for v, a in zip(probes, answers)]})
    row = fetch_one(cur, "SELECT f::text, encode(scalable_bloom_send(f), 'hex') FROM"
                         " (SELECT scalable_bloom_agg(i, 0.01) f FROM generate_series(1, 300) i) a")
    golden["scalable"].append({"type": "int8", "agg": "scalable_bloom_agg(i, 0.01) over generate_series(1, 300)",
                               "values": [str(i) for i in range(1, 301)], "text": row[0], "send": row[1],
                               "probes": []})

    # ---- invalid forms: the server's error for each ----
    valid = golden["filters"][0]["text"]
    head, b64 = valid.rsplit(":", 1)
    bad_texts = ["", "bloom", "bloom:", "bloom:v2:h1:m18:k3:AAAAAAAAAAA=", "bloom:v1:h3:m18:k3:AAAAAAAAAAA=",
                 "bloom:v1:h0:m18:k3:AAAAAAAAAAA=", "bloom:v1:h1:m18:k0:AAAAAAAAAAA=",
                 "bloom:v1:h1:m18:k65:AAAAAAAAAAA=", "bloom:v1:h1:m0:k3:", "bloom:v1:h1:m018:k3:AAAAAAAAAAA=",
                 "bloom:v1:h1:m18:k03:AAAAAAAAAAA=", "bloom:v1:h1:m18:k3:AAAAAAAAAA==",
                 "bloom:v1:h1:m18:k3:AAAAAAAAAAAA", "bloom:v1:h1:m18:k3:AAAAAAAAAAB=",
                 "bloom:v1:h1:m18:k3:AAAAAAAAAAA", "bloom:v1:h1:m18:k3:AAAAAAAAAAA=x",
                 "bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAA", "bloom:v1:h1:m18:k3:AAAAAAAAAAA= ",
                 "bloom:v1:h1:m18:k3://///////wA=", "bloom:v1:h1:m18:k3:f2:AAAAAAAAAAA=",
                 "bloom:v1:h1:m18:k3:f1:AAAAAAAAAAA=", "bloom:v1:h1:m18:k3:f0:AAAAAAAAAAA=",
                 "bloom:v1:h2:m1000:k3:" + "A" * 171 + "=", "bloom:v1:h1:m99999999999:k3:AAAA",
                 "bloom:v1:h1:m18446744073709551616:k3:AAAA", "bloom:v1:h1:m-18:k3:AAAAAAAAAAA=",
                 "BLOOM:v1:h1:m18:k3:AAAAAAAAAAA=", "bloom:v1:h1:m18:k3:AAAA AAAAAA=",
                 head + ":" + b64[:-4], "bloom:v1:h1:m18:k3:AAAAAAAAAAA=\n"]
    for s in bad_texts:
        err = error_of(conn, "SELECT %s::text::bloom", [s])
        golden["forms"].append({"type": "bloom", "form": "text", "input": s, "error": err,
                                  "text": None if err else fetch_one(conn.cursor(), "SELECT %s::text::bloom::text", [s])[0]})
    for s in ["counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAA=", "counting_bloom:v1:h1:m18:k3:AAAA",
              "counting_bloom:v2:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==",
              "counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAQ=="]:
        golden["forms"].append({"type": "counting_bloom", "form": "text", "input": s,
                                  "error": error_of(conn, "SELECT %s::text::counting_bloom", [s])})
    for s in ["scalable_bloom:v1:p0.01:n10:s3:r0.8:c0:h1:m130:k9:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
              "scalable_bloom:v1:p0.01:n10:s2:r0.8:c11:h1:m130:k9:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
              "scalable_bloom:v1:p0.01:n10:s2:r0.8:c0:h1:m131:k9:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
              "scalable_bloom:v1:p1.5:n10:s2:r0.8:c0:h1:m130:k9:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]:
        golden["forms"].append({"type": "scalable_bloom", "form": "text", "input": s,
                                  "error": error_of(conn, "SELECT %s::text::scalable_bloom", [s])})
    # binary: mutations of a valid bloom_send, sent as a binary parameter of type bloom
    conn.commit()
    conn.autocommit = True
    bloom_oid = fetch_one(conn.cursor(), "SELECT 'bloom'::regtype::oid")[0]
    good = bytes.fromhex(fetch_one(conn.cursor(), "SELECT encode(bloom_send(bloom_add(bloom_empty_mk(18, 3), 42)), 'hex')")[0])
    mutations = {"valid": good, "empty": b"", "header only": good[:12], "short": good[:-1],
                 "long": good + b"\0", "version 0": b"\0" + good[1:], "version 2": b"\2" + good[1:],
                 "scheme 0": good[:1] + b"\0" + good[2:], "scheme 3": good[:1] + b"\3" + good[2:],
                 "k 0": good[:2] + b"\0" + good[3:], "k 65": good[:2] + b"\x41" + good[3:],
                 "flags 2": good[:3] + b"\2" + good[4:], "flags 1": good[:3] + b"\1" + good[4:],
                 "m 0": good[:4] + bytes(8) + good[12:], "m 19": good[:4] + (19).to_bytes(8, "big") + good[12:],
                 "m 65": good[:4] + (65).to_bytes(8, "big") + good[12:],
                 "padding bit": good[:14] + bytes([good[14] | 0x80]) + good[15:],
                 "scheme 2 m 18": good[:1] + b"\2" + good[2:],
                 "scheme 2 m 512": good[:1] + b"\2" + good[2:4] + (512).to_bytes(8, "big") + bytes(64),
                 "huge m": good[:4] + (2**63).to_bytes(8, "big") + good[12:],
                 "sparse marker": b"\x81" + good[1:]}
    for name, data in mutations.items():
        err = None
        res = conn.pgconn.exec_params(b"SELECT $1::text", [data], [bloom_oid], [1])
        if res.status != psycopg.pq.ExecStatus.TUPLES_OK:
            err = {"sqlstate": res.error_field(psycopg.pq.DiagnosticField.SQLSTATE).decode(),
                   "message": res.error_field(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY).decode(),
                   "detail": (res.error_field(psycopg.pq.DiagnosticField.MESSAGE_DETAIL) or b"").decode() or None}
            text = None
        else:
            text = res.get_value(0, 0).decode()
        golden["forms"].append({"type": "bloom", "form": "binary", "name": name,
                                  "input": data.hex(), "error": err, "text": text})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, indent=0, sort_keys=False)
        f.write("\n")
    print(f"wrote {out_path}: {sum(len(v) for v in golden['types'].values())} values, "
          f"{len(golden['filters'])} filters, {len(golden['optimal'])} sizing cases, "
          f"{len(golden['forms'])} forms")


if __name__ == "__main__":
    main()
