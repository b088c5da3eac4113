"""asyncpg: bloom, counting_bloom and scalable_bloom as parameters and columns.

    import asyncpg, bloomfilter.asyncpg
    conn = await asyncpg.connect(...)
    await bloomfilter.asyncpg.register_types(conn)          # binary; format="text" for text
    await conn.fetchval("SELECT count(*) FROM t WHERE bloom_contains($1, id)", f)

A Pool registers each connection with init=bloomfilter.asyncpg.register_types.
"""
from ._types import LOOKUP, found, to_filter


async def register_types(conn, format="binary"):
    """Set the codecs of the types on the connection, in binary (the default) or text format."""
    if format not in ("binary", "text"):
        raise ValueError("format is 'binary' or 'text'")
    types = found([tuple(r) for r in await conn.fetch(LOOKUP)])
    for name, (_oid, schema, cls) in types.items():
        if format == "binary":
            await conn.set_type_codec(name, schema=schema, format="binary",
                                      encoder=lambda v, cls=cls: to_filter(cls, v).to_binary(),
                                      decoder=cls.from_binary)
        else:
            await conn.set_type_codec(name, schema=schema, format="text",
                                      encoder=lambda v, cls=cls: to_filter(cls, v).to_text(),
                                      decoder=cls.from_text)
    return types
