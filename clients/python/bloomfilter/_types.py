"""The SQL types the drivers register, and how each is found on a server."""
from . import Bloom, CountingBloom, ScalableBloom

# (SQL type name, class)
TYPES = (("bloom", Bloom), ("counting_bloom", CountingBloom), ("scalable_bloom", ScalableBloom))

# The OID and the schema of each type, by the name the session's search_path finds
# (pgvector's clients look their type up the same way).
LOOKUP = ("SELECT t.typname::text, t.oid::int8, n.nspname::text FROM pg_catalog.pg_type t"
          " JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace"
          " WHERE t.oid IN (pg_catalog.to_regtype('bloom'), pg_catalog.to_regtype('counting_bloom'),"
          " pg_catalog.to_regtype('scalable_bloom'))")


def found(rows):
    """{name: (oid, schema, class)} of the rows of LOOKUP; an error when bloom is not there."""
    oids = {name: (oid, schema) for name, oid, schema in rows}
    if "bloom" not in oids:
        raise LookupError("the bloom type was not found: is the bloomfilter extension installed"
                          " (CREATE EXTENSION bloomfilter) and on the search_path?")
    return {name: oids[name] + (cls,) for name, cls in TYPES if name in oids}


def to_filter(cls, value):
    """A parameter: a filter of the class, or its text or binary form."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        return cls.from_text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return cls.from_binary(bytes(value))
    raise TypeError(f"a {cls.__name__} parameter must be a {cls.__name__}, not {type(value).__name__}")
