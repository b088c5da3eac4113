"""psycopg2: bloom, counting_bloom and scalable_bloom as parameters and columns.

    import psycopg2, bloomfilter.psycopg2
    conn = psycopg2.connect(...)
    bloomfilter.psycopg2.register_types(conn)
    cur.execute("SELECT count(*) FROM t WHERE bloom_contains(%s, id)", [f])

psycopg2 speaks text only: a parameter is the filter's text form with a cast
to its type (the name the server gave, schema-qualified), so no manual cast
is needed; a column is read from its text form.
"""
import psycopg2
import psycopg2.extensions

from ._types import LOOKUP, found


class _Adapter:
    def __init__(self, obj, sqltype):
        self._literal = psycopg2.extensions.QuotedString(obj.to_text())
        self._sqltype = sqltype

    def prepare(self, connection):
        self._literal.prepare(connection)

    def getquoted(self):
        return self._literal.getquoted() + b"::" + self._sqltype


def register_types(conn_or_cursor, globally=False):
    """Register the types on a connection (or a cursor's), or for every connection with globally=True."""
    cur = conn_or_cursor.cursor() if hasattr(conn_or_cursor, "cursor") else conn_or_cursor
    cur.execute(LOOKUP)
    types = found(cur.fetchall())
    scope = None if globally else conn_or_cursor
    for name, (oid, schema, cls) in types.items():
        def cast(value, _cursor, cls=cls):
            return None if value is None else cls.from_text(value)

        psycopg2.extensions.register_type(
            psycopg2.extensions.new_type((oid,), name.upper(), cast), scope)
        sqltype = (psycopg2.extensions.quote_ident(schema, cur) + "." +
                   psycopg2.extensions.quote_ident(name, cur)).encode()
        psycopg2.extensions.register_adapter(cls, lambda obj, sqltype=sqltype: _Adapter(obj, sqltype))
    return types
