"""bloomfilter: build, read and probe the PostgreSQL extension's filters, bit for bit.

The filters are the server's own code (src/core, compiled in): a filter
made here is byte for byte the one bloom_agg makes of the same values, and
contains answers as bloom_contains does.

    import bloomfilter
    f = bloomfilter.empty(0.01, 1_000_000)          # bloom_empty(0.01, 1000000)
    f.add_many(ids)                                 # bloom_add_all
    42 in f, f.contains(42)                         # bloom_contains
    f.to_text(), f.to_binary()                      # bloom_out, bloom_send
    bloomfilter.from_text(s)                        # bloom_in (any of the three types)

Values: see bloomfilter.values (value(x, sqltype) names a SQL type).
Drivers: bloomfilter.psycopg, bloomfilter.psycopg2, bloomfilter.asyncpg.
"""
from collections import namedtuple as _namedtuple

from . import _core
from ._core import BloomError, Value
from .values import SQL_TYPES, value

__all__ = ["Bloom", "CountingBloom", "ScalableBloom", "BloomError", "Value", "value", "empty",
           "empty_mk", "union", "intersection", "optimal", "expected_fpr", "from_text",
           "from_binary", "FORMAT_VERSION", "SQL_TYPES"]

FORMAT_VERSION = _core.FORMAT_VERSION

Info = _namedtuple("Info", "m k bytes bits_set fill_ratio estimated_cardinality false_positive_rate")
Optimal = _namedtuple("Optimal", "m k bytes bits_per_item hash_scheme")
ExpectedFpr = _namedtuple("ExpectedFpr", "classic goel_gupta_bound")

# The header is 16 bytes in a stored value (4-byte varlena header and 12 more)
_VALUE_HEADER_BYTES = 16


class _Shaped(_core.Filter):
    """What bloom and counting_bloom filters share: a header (m, k, scheme, flags) and an array."""
    __slots__ = ()
    _kind = None

    @classmethod
    def empty(cls, false_positive_rate=0.01, capacity=10000):
        """An empty filter of bloom_empty(p, n)'s shape, hash scheme included."""
        return cls._empty(false_positive_rate, capacity, cls._kind)

    @classmethod
    def empty_mk(cls, m, k):
        """An empty filter of exactly m bits (counters) and k probes, hash scheme 1."""
        return cls._empty_mk(m, k, cls._kind)

    @classmethod
    def from_text(cls, text):
        """Read the text form (the type's input function); BloomError as its 22P02."""
        f = cls._from_text(text)
        if f.kind != cls._kind_name:
            raise _wrong_kind(f.kind, cls._kind_name)
        return f

    @classmethod
    def from_binary(cls, data):
        """Read the binary form (the type's send output); BloomError as its 22P03."""
        return cls._from_binary(data, cls._kind)

    m = property(lambda self: self._shape()[0], doc="bits (counters)")
    k = property(lambda self: self._shape()[1], doc="probes per value")
    hash_scheme = property(lambda self: self._shape()[2], doc="1 (enhanced double hashing) or 2 (blocked)")
    flags = property(lambda self: self._shape()[3], doc="header flags (1: text hashed as UTF-8)")

    def union(self, *others):
        """The filter of the union (bloom_union; | is the same)."""
        result = self
        for other in others:
            result = result._union(other)
        return result if others else self.copy()

    def info(self):
        """bloom_info's columns."""
        m, k, scheme, _ = self._shape()
        bits_set = self.bits_set()
        return Info(m, k, _VALUE_HEADER_BYTES + self.nbytes, bits_set, bits_set / m,
                    self.cardinality(), self.false_positive_rate())

    __contains__ = _core.Filter.contains
    __hash__ = None

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        m, k, scheme, flags = self._shape()
        return f"<{type(self).__name__} m={m} k={k} hash_scheme={scheme} flags={flags} bits_set={self.bits_set()}>"

    def __reduce__(self):
        return (type(self).from_binary, (self.to_binary(),))


class Bloom(_Shaped):
    """A bloom filter: the SQL type bloom."""
    __slots__ = ()
    _kind = _core.KIND_BLOOM
    _kind_name = "bloom"

    def intersection(self, *others):
        """The bitwise AND (bloom_intersection; & is the same)."""
        result = self
        for other in others:
            result = result._intersection(other)
        return result if others else self.copy()

    def union_cardinality(self, other):
        """bloom_union_cardinality: the estimate of A | B, without building it."""
        return self._pair_estimates(other)[0]

    def intersection_cardinality(self, other):
        """bloom_intersection_cardinality: n(A) + n(B) - n(A | B), at least 0; NaN if the union is saturated."""
        return self._pair_estimates(other)[1]

    def jaccard(self, other):
        """bloom_jaccard: intersection / union estimates (1 for two empty filters)."""
        return self._pair_estimates(other)[2]

    def empty_like(self):
        """bloom_empty_like: an empty filter of this shape (its flags too)."""
        return Bloom._from_binary(self.to_binary()[:12] + bytes(self.nbytes), _core.KIND_BLOOM)


class CountingBloom(_Shaped):
    """A counting filter: the SQL type counting_bloom (4-bit counters)."""
    __slots__ = ()
    _kind = _core.KIND_COUNTING
    _kind_name = "counting_bloom"

    def to_bloom(self):
        """bloom(counting_bloom): the bloom filter of the values present."""
        return self._to_bloom(Bloom)


class ScalableBloom(_core.Filter):
    """A scalable filter: the SQL type scalable_bloom (stages that grow as values arrive)."""
    __slots__ = ()

    @classmethod
    def empty(cls, false_positive_rate, initial_capacity, growth=2, tightening=0.8):
        """scalable_bloom_empty(p, n0 [, growth [, tightening]])."""
        return cls._scalable_empty(false_positive_rate, initial_capacity, growth, tightening)

    @classmethod
    def from_text(cls, text):
        f = cls._from_text(text)
        if f.kind != "scalable_bloom":
            raise _wrong_kind(f.kind, "scalable_bloom")
        return f

    @classmethod
    def from_binary(cls, data):
        return cls._from_binary(data, _core.KIND_SCALABLE)

    def parameters(self):
        """p, n0, growth, tightening, flags and the stages (scalable_bloom_stages)."""
        return self._shape()

    def to_bloom(self):
        """bloom(scalable_bloom): its one stage as a bloom filter (BloomError for more)."""
        return self._to_bloom(Bloom)

    __contains__ = _core.Filter.contains
    __hash__ = None

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return f"<ScalableBloom stages={len(self._shape()['stages'])} nbytes={self.nbytes}>"

    def __reduce__(self):
        return (ScalableBloom.from_binary, (self.to_binary(),))


def _wrong_kind(kind, wanted):
    error = BloomError(f"invalid input syntax for type {wanted}: the text is a {kind}")
    error.sqlstate = "22P02"
    error.detail = f"The text is a {kind}, not a {wanted}."
    return error


_CLASSES = {"bloom": Bloom, "counting_bloom": CountingBloom, "scalable_bloom": ScalableBloom}


def empty(false_positive_rate=0.01, capacity=10000):
    """bloom_empty(p, n): m, k and hash scheme exactly the server's."""
    return Bloom.empty(false_positive_rate, capacity)


def empty_mk(m, k):
    """bloom_empty_mk(m, k)."""
    return Bloom.empty_mk(m, k)


def union(*filters):
    """bloom_union(VARIADIC): the OR of filters of one shape (None values skipped, as NULLs)."""
    filters = [f for f in filters if f is not None]
    return filters[0].union(*filters[1:]) if filters else None


def intersection(*filters):
    """bloom_intersection(VARIADIC)."""
    filters = [f for f in filters if f is not None]
    return filters[0].intersection(*filters[1:]) if filters else None


def optimal(false_positive_rate, capacity):
    """bloom_optimal(p, n): (m, k, bytes, bits_per_item, hash_scheme) of bloom_empty(p, n)."""
    m, k, scheme, nbytes = _core.optimal(false_positive_rate, capacity)
    return Optimal(m, k, nbytes, m / capacity, scheme)


def expected_fpr(m, k, n):
    """bloom_expected_fpr(m, k, n): (classic, goel_gupta_bound)."""
    return ExpectedFpr(*_core.expected_fpr(m, k, n))


def from_text(text):
    """Read any of the three text forms (bloom:, counting_bloom:, scalable_bloom:)."""
    if not isinstance(text, str):
        raise TypeError(f"from_text takes a str, not {type(text).__name__}")
    for name, cls in _CLASSES.items():
        if text.startswith(name + ":"):
            return cls._from_text(text)
    return Bloom._from_text(text)


def from_binary(data, kind="bloom"):
    """Read a binary form of the named type (the bytes of bloom_send and the others)."""
    if kind not in _CLASSES:
        raise ValueError(f"kind must be one of {', '.join(_CLASSES)}")
    return _CLASSES[kind].from_binary(data)
