"""What the tests share: the golden file, and the server's text of a value as a Python value."""
import datetime
import decimal
import json
import os
import uuid

import bloomfilter

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "golden", "golden.json")
_golden = None


def golden():
    """clients/golden/golden.json (its README says what is in it)."""
    global _golden
    if _golden is None:
        with open(GOLDEN_PATH, encoding="utf-8") as f:
            _golden = json.load(f)
        assert _golden["format"] == "bloomfilter-golden/1", _golden["format"]
    return _golden


def python_value(sqltype, text):
    """The Python value of the server's text output of a value of sqltype (golden/README.md)."""
    if sqltype in ("int2", "int4", "int8"):
        return int(text)
    if sqltype == "numeric":
        return decimal.Decimal(text)
    if sqltype in ("float4", "float8"):
        return float(text)
    if sqltype in ("text", "varchar", "bpchar", "name"):
        return text
    if sqltype == "bytea":
        assert text.startswith("\\x")
        return bytes.fromhex(text[2:])
    if sqltype == "uuid":
        return uuid.UUID(text)
    if sqltype == "date":
        return datetime.date.fromisoformat(text)
    if sqltype in ("timestamp", "timestamptz"):
        return datetime.datetime.fromisoformat(text)
    if sqltype == "bool":
        return text in ("true", "t")
    raise ValueError(sqltype)


def encoded(sqltype, text):
    """The Value the client makes of it, naming the SQL type."""
    return bloomfilter.value(python_value(sqltype, text), sqltype)


def server_float(text):
    """A float8 as the server printed it (shortest exact digits)."""
    return float(text)


def same_float(a, b):
    """Equal to the last digit: the same double, NaN equal to NaN."""
    return (a != a and b != b) or a == b
