"""Python values to the canonical bytes the server hashes.

The server's table (doc/reference.md, "Value encodings"; src/encoding/
encoding.c) says how each SQL type becomes bytes.  A Python value stands
for one SQL type, chosen by its Python type and never guessed:

    bool                    boolean      1 byte
    int                     int8         8 bytes little-endian; beyond int64,
                                         numeric's digits (only numeric holds it)
    float                   float8       IEEE-754 bits, -0 as +0, one NaN
    decimal.Decimal         numeric      integral within int64: as int8;
                                         else its normalized decimal text
    str                     text         UTF-8
    bytes, bytearray,       bytea        the bytes
    memoryview
    uuid.UUID               uuid         the 16 bytes
    datetime.datetime       timestamp (naive) or timestamptz (aware):
                                         microseconds since 2000-01-01 (UTC)
    datetime.date           date         its midnight's timestamp

int, float, str, bytes and bool are encoded in C (_core.c); the rest here.
value(x, sqltype) names the SQL type when the Python type does not say it:
a float4 column (the float rounded to single precision), bpchar (trailing
spaces dropped), name (cut at 63 bytes), or 42 as a float8.  Types of one
of the server's groups ("What equal means to a filter") hash alike, so
int2, int4, int8 and numeric give the same bytes for the same integer.
"""
import datetime as _datetime
import decimal as _decimal
import numbers as _numbers
import struct as _struct
import uuid as _uuid

from . import _core
from ._core import BloomError, Value

_EPOCH = _datetime.datetime(2000, 1, 1)
_EPOCH_UTC = _datetime.datetime(2000, 1, 1, tzinfo=_datetime.timezone.utc)
_EPOCH_DATE = _datetime.date(2000, 1, 1)
_USECS_PER_DAY = 86_400_000_000
_INT_RANGES = {"int2": 16, "int4": 32, "int8": 64}
_SQL_NAMES = {"int2": "smallint", "int4": "integer", "int8": "bigint"}
_NUMERIC_MAX_INTEGER_DIGITS = 131072
_NUMERIC_MAX_SCALE = 16383
_NAMEDATALEN = 64
_FLAG_TEXT_UTF8 = _core.FLAG_TEXT_UTF8

# SQL type names and their aliases, as the server's format_type spells them
_ALIASES = {
    "smallint": "int2", "integer": "int4", "int": "int4", "bigint": "int8",
    "decimal": "numeric", "real": "float4", "double precision": "float8", "float": "float8",
    "character varying": "varchar", "character": "bpchar", "char": "bpchar",
    "boolean": "bool", "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamptz",
}
SQL_TYPES = ("int2", "int4", "int8", "numeric", "float4", "float8", "text", "varchar",
             "bpchar", "name", "bytea", "uuid", "date", "timestamp", "timestamptz", "bool")


def _error(sqlstate, message, detail):
    error = BloomError(f"{message}: {detail}")
    error.sqlstate = sqlstate
    error.detail = detail
    return error


def _le64(integer):
    return (integer & 0xFFFF_FFFF_FFFF_FFFF).to_bytes(8, "little")


def _integer_bytes(integer):
    if -(1 << 63) <= integer < (1 << 63):
        return _le64(integer)
    return str(integer).encode()


def _numeric_bytes(number):
    """numeric's canonical bytes (encoding.c's bloom_hash_numeric)."""
    if number.is_nan():
        if number.is_snan():
            raise _error("22P02", "cannot encode Decimal('sNaN') as numeric",
                         "PostgreSQL's numeric has one NaN, not a signaling one.")
        return b"NaN"
    if number.is_infinite():
        return b"-Infinity" if number < 0 else b"Infinity"
    exponent = number.as_tuple().exponent
    digits = len(number.as_tuple().digits)
    if exponent >= 0 and digits + exponent > _NUMERIC_MAX_INTEGER_DIGITS or -exponent > _NUMERIC_MAX_SCALE + digits:
        raise _error("22003", "cannot encode the Decimal as numeric",
                     "It is beyond numeric's range (131072 digits before the point, 16383 after).")
    if number == number.to_integral_value():
        return _integer_bytes(int(number))
    text = format(number, "f").rstrip("0").rstrip(".")
    integer_part, _, fraction = text.lstrip("-").partition(".")
    if len(fraction) > _NUMERIC_MAX_SCALE or len(integer_part) > _NUMERIC_MAX_INTEGER_DIGITS:
        raise _error("22003", "cannot encode the Decimal as numeric",
                     "It is beyond numeric's range (131072 digits before the point, 16383 after).")
    return text.encode()


def _to_float4(number):
    """A float rounded to float4 as the server's float8-to-float4 cast (overflow and underflow refused)."""
    if number != number or number in (float("inf"), float("-inf")):
        return number
    try:
        single = _struct.unpack("<f", _struct.pack("<f", number))[0]
    except OverflowError:
        raise _error("22003", f"cannot encode {number!r} as float4", "value out of range: overflow") from None
    if single == 0.0 and number != 0.0:
        raise _error("22003", f"cannot encode {number!r} as float4", "value out of range: underflow")
    return single


def _text_value(string, sqltype):
    if not isinstance(string, str):
        raise _error("42804", f"cannot encode {type(string).__name__} as {sqltype}", "Give a str.")
    if sqltype == "bpchar":
        string = string.rstrip(" ")
    data = string.encode("utf-8", "strict") if string.isascii() else _utf8(string)
    if sqltype == "name" and len(data) >= _NAMEDATALEN:
        # namein: cut at NAMEDATALEN - 1 bytes, on a character boundary
        cut = _NAMEDATALEN - 1
        while cut > 0 and (data[cut] & 0xC0) == 0x80:
            cut -= 1
        data = data[:cut]
    if b"\0" in data:
        raise _error("22021", f"cannot encode a str as {sqltype}",
                     "PostgreSQL text cannot contain the character NUL (U+0000).")
    return Value(data, sqltype, 0 if data.isascii() else _FLAG_TEXT_UTF8)


def _utf8(string):
    try:
        return string.encode("utf-8", "strict")
    except UnicodeEncodeError:
        raise _error("22021", "cannot encode a str as text",
                     "A Python str with a lone surrogate has no UTF-8 form, and PostgreSQL text is UTF-8.") from None


def _timestamp_value(moment, sqltype):
    if type(moment) is _datetime.date or not isinstance(moment, _datetime.datetime):
        raise _error("42804", f"cannot encode {type(moment).__name__} as {sqltype}", "Give a datetime.datetime.")
    aware = moment.tzinfo is not None and moment.utcoffset() is not None
    if sqltype == "timestamptz" and not aware:
        raise _error("22023", "cannot encode a naive datetime as timestamptz",
                     "A timestamptz is a moment: give the datetime a tzinfo (the library does not guess a zone).")
    if sqltype == "timestamp" and aware:
        raise _error("22023", "cannot encode an aware datetime as timestamp",
                     "A timestamp has no zone: give a naive datetime, or ask for timestamptz.")
    delta = moment - (_EPOCH_UTC if aware else _EPOCH)
    micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    return Value(_le64(micros), sqltype)


def value(x, sqltype=None):
    """The Value of x as the server hashes it for sqltype (by default, x's own type).

    A Value can be added to and probed in any filter; it is what SQL's
    bloom_value(x) computes (.h1, .h2, .flags).  BloomError when x cannot be
    that SQL type.
    """
    if sqltype is None:
        return _default_value(x)
    sqltype = _ALIASES.get(sqltype.lower().strip(), sqltype.lower().strip())
    if isinstance(x, Value):
        if x.sqltype != sqltype:
            raise _error("42804", f"a Value of {x.sqltype} is not a {sqltype}", "Encode the Python value instead.")
        return x
    if sqltype in _INT_RANGES:
        if isinstance(x, bool) or not isinstance(x, _numbers.Integral):
            raise _error("42804", f"cannot encode {type(x).__name__} as {sqltype}", "Give an int.")
        bits = _INT_RANGES[sqltype]
        x = int(x)
        if not -(1 << (bits - 1)) <= x < (1 << (bits - 1)):
            raise _error("22003", f"{_SQL_NAMES[sqltype]} out of range", f"{x} is not a {sqltype}.")
        return Value(_le64(x), sqltype)
    if sqltype == "numeric":
        if isinstance(x, bool) or not isinstance(x, (_numbers.Integral, _decimal.Decimal)):
            raise _error("42804", f"cannot encode {type(x).__name__} as numeric",
                         "Give an int or a decimal.Decimal (a float is not exact).")
        if isinstance(x, _numbers.Integral):
            return Value(_integer_bytes(int(x)), "numeric")
        return Value(_numeric_bytes(x), "numeric")
    if sqltype in ("float4", "float8"):
        if isinstance(x, bool) or not isinstance(x, (float, _numbers.Integral)):
            raise _error("42804", f"cannot encode {type(x).__name__} as {sqltype}", "Give a float or an int.")
        number = float(x)
        if sqltype == "float4":
            number = _to_float4(number)
        if number != number:
            return Value(b"\x00\x00\x00\x00\x00\x00\xf8\x7f", sqltype)
        return Value(_struct.pack("<d", 0.0 if number == 0 else number), sqltype)
    if sqltype in ("text", "varchar", "bpchar", "name"):
        return _text_value(x, sqltype)
    if sqltype == "bytea":
        if not isinstance(x, (bytes, bytearray, memoryview)):
            raise _error("42804", f"cannot encode {type(x).__name__} as bytea", "Give bytes.")
        return Value(bytes(x), "bytea")
    if sqltype == "uuid":
        if not isinstance(x, _uuid.UUID):
            raise _error("42804", f"cannot encode {type(x).__name__} as uuid", "Give a uuid.UUID.")
        return Value(x.bytes, "uuid")
    if sqltype == "date":
        if type(x) is not _datetime.date:
            raise _error("42804", f"cannot encode {type(x).__name__} as date", "Give a datetime.date.")
        return Value(_le64((x - _EPOCH_DATE).days * _USECS_PER_DAY), "date")
    if sqltype in ("timestamp", "timestamptz"):
        return _timestamp_value(x, sqltype)
    if sqltype == "bool":
        if not isinstance(x, bool):
            raise _error("42804", f"cannot encode {type(x).__name__} as bool", "Give a bool.")
        return Value(b"\x01" if x else b"\x00", "bool")
    raise _error("42883", f"unknown SQL type {sqltype!r}",
                 "The library encodes " + ", ".join(SQL_TYPES) + ".")


def _default_value(x):
    """The Value of x by its Python type (the encoder _core.c calls for types it does not encode)."""
    if isinstance(x, Value):
        return x
    if isinstance(x, bool):
        return value(x, "bool")
    if isinstance(x, _numbers.Integral):
        return Value(_integer_bytes(int(x)), "int8" if -(1 << 63) <= int(x) < (1 << 63) else "numeric")
    if isinstance(x, float):
        return value(x, "float8")
    if isinstance(x, _decimal.Decimal):
        return value(x, "numeric")
    if isinstance(x, str):
        return _text_value(str(x), "text")
    if isinstance(x, (bytes, bytearray, memoryview)):
        return value(x, "bytea")
    if isinstance(x, _uuid.UUID):
        return value(x, "uuid")
    if isinstance(x, _datetime.datetime):
        aware = x.tzinfo is not None and x.utcoffset() is not None
        return _timestamp_value(x, "timestamptz" if aware else "timestamp")
    if isinstance(x, _datetime.date):
        return value(x, "date")
    if x is None:
        raise _error("22004", "cannot encode None",
                     "NULL is never added to a filter, and a filter answers nothing about it.")
    raise _error("42883", f"cannot encode a value of Python type {type(x).__name__}",
                 "The library encodes bool, int, float, Decimal, str, bytes, UUID, date and datetime;"
                 " give value(x, sqltype) for another SQL type's value.")


_core._set_encoder(_default_value)
