"""psycopg 3: bloom, counting_bloom and scalable_bloom as parameters and columns.

    import psycopg, bloomfilter.psycopg
    conn = psycopg.connect(...)
    bloomfilter.psycopg.register_types(conn)      # or a cursor
    conn.execute("SELECT count(*) FROM t WHERE bloom_contains(%s, id)", [f])
    conn.execute("SELECT f FROM filters").fetchone()[0]       # a Bloom

Parameters go in text (%t) or binary (%b; %s picks binary), columns are
read in either format (cursor(binary=True)).  The types are found by their
OID, through the session's search_path.
"""
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format

from ._types import LOOKUP, found


def _adapters(oid, cls):
    class TextDumper(Dumper):
        format = Format.TEXT

        def dump(self, obj):
            return obj.to_text().encode()

    class BinaryDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj):
            return obj.to_binary()

    class TextLoader(Loader):
        format = Format.TEXT

        def load(self, data):
            return cls.from_text(bytes(data).decode())

    class BinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data):
            return cls.from_binary(bytes(data))

    TextDumper.oid = BinaryDumper.oid = oid
    return TextDumper, BinaryDumper, TextLoader, BinaryLoader


def register_types(context):
    """Register the types on a connection or cursor (psycopg.Connection or Cursor)."""
    connection = getattr(context, "connection", context)
    with connection.cursor(binary=False) as cur:
        cur.execute(LOOKUP)
        types = found(cur.fetchall())
    _register(context, types)
    return types


async def register_types_async(context):
    """The same for a psycopg.AsyncConnection or AsyncCursor."""
    connection = getattr(context, "connection", context)
    async with connection.cursor(binary=False) as cur:
        await cur.execute(LOOKUP)
        types = found(await cur.fetchall())
    _register(context, types)
    return types


def _register(context, types):
    adapters = context.adapters
    for name, (oid, _schema, cls) in types.items():
        text_dumper, binary_dumper, text_loader, binary_loader = _adapters(oid, cls)
        adapters.register_dumper(cls, text_dumper)
        adapters.register_dumper(cls, binary_dumper)
        adapters.register_loader(oid, text_loader)
        adapters.register_loader(oid, binary_loader)
