/*
 * encoding/encoding.c: values to their canonical bytes, and to hashes.
 *
 * A filter only answers "was this value added?" correctly if a value is
 * turned into the same bytes every time, on every machine, by every release,
 * whoever is connected.  The hash (XXH3-128, bf_hash_bytes in core/core.h) is therefore taken
 * of a canonical encoding of the value, chosen so that values SQL considers
 * equal across the common types hash equally:
 *
 *   int2, int4, int8        the value as a signed 64-bit integer, 8 bytes
 *                           little-endian (42::int2 hashes like 42::int8)
 *   numeric                 NaN and +-Infinity: the text numeric_normalize()
 *                           gives; an integral value within int64 range: the
 *                           int8 encoding (42.000 hashes like 42::int8); any
 *                           other value: the numeric_normalize() text, which
 *                           drops trailing fractional zeros (1.50 = 1.5)
 *   float4, float8          the value as float8 (float4 widens exactly), its
 *                           IEEE-754 bits as 8 bytes little-endian; -0 as +0;
 *                           every NaN as 0x7ff8000000000000
 *   text, varchar, bpchar,  the string as UTF-8 (see "Text" below), with no
 *   name                    length word or terminator; bpchar without its
 *                           trailing spaces, as bpchar compares
 *   bytea                   the raw bytes
 *   uuid                    the 16 bytes as stored
 *   date                    the timestamp of its midnight (a date beyond
 *                           timestamp's range: days * 86400000000 modulo 2^64);
 *                           -infinity and infinity as the timestamp ones
 *   timestamp, timestamptz  the int64 microseconds since 2000-01-01 (UTC), 8
 *                           bytes little-endian
 *   boolean                 1 byte, 0 or 1
 *   any other type          the bytes its binary send function produces, run
 *                           with the client encoding set to UTF-8 (see below)
 *
 * Domains are encoded as their base type.  These encodings are part of the
 * stored format: a filter written today must still find its values after an
 * upgrade, so they never change under a hash scheme (sql/hashing.sql
 * pins them).
 *
 * Text.  Send functions of text-bearing types (textsend inside arrays and
 * records, json, jsonb, xml, enums, hstore, citext, ...) convert text to the
 * session's client encoding, and text types are stored in the database
 * encoding; hashing either as it comes would make a filter's bits depend on
 * who is connected and where.  So text reaches the hash as UTF-8: send
 * functions run with the client encoding switched to UTF-8 for the call,
 * and text types in a database of another encoding are converted to UTF-8
 * (ASCII, the same bytes in every server encoding, is left as it is).
 *
 * Filters made before 1.2 hashed the database encoding's bytes, and send
 * output in the client encoding of the session that built them.  The header
 * flag BLOOM_FLAG_TEXT_UTF8 tells the two readings apart without changing
 * the filters almost everyone has:
 *
 *   - In a UTF8 database the old reading already was UTF-8 for text types
 *     and for send functions under the usual client encoding UTF8.  A new
 *     filter starts without the flag and is byte-identical to what 1.1
 *     built; it gets the flag when a value whose bytes are not all ASCII is
 *     added (text, or a send-encoded value of a type that may carry text:
 *     bloom_type_carries_text), so that databases of other encodings read
 *     it as UTF-8.  Without the flag, a filter holds only
 *     values whose bytes are the same under every encoding.
 *   - A SQL_ASCII database does not know its text's encoding and converts
 *     nothing; its bytes are hashed as they are and taken to be UTF-8, with
 *     the same flag rule.  Where such a database holds another encoding's
 *     bytes, its filters agree with other databases on ASCII text only.
 *   - In any other database (LATIN1, EUC_JP, ...) new filters are created
 *     with the flag.  A filter without it (built there before 1.2) keeps its
 *     reading: database bytes, and send functions without conversion, which
 *     is what it was built with whenever the client encoding matched the
 *     database's.  bloom_empty_like and bloom_agg_like copy the template's
 *     flags, so a rollup of such filters stays consistent.
 *
 * Unions and intersections keep the flag of either side where both
 * readings agree (UTF8 and SQL_ASCII databases), and refuse to mix them
 * anywhere else (bloom_combine_flags).
 *
 * The type is resolved once per call site into an encoder; per row there is
 * one switch, a few stores and the hash.
 */
#include "postgres.h"

#include "compat.h"
#include "encoding/encoding.h"


#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "access/transam.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

/* Whether the database's text is hashed as it is stored (it is UTF-8, or of unknown encoding). */
static inline bool
bloom_database_text_is_utf8(int database_encoding)
{
	return database_encoding == PG_UTF8 || database_encoding == PG_SQL_ASCII;
}

uint8
bloom_new_filter_flags(void)
{
	return bloom_database_text_is_utf8(GetDatabaseEncoding()) ? 0 : BLOOM_FLAG_TEXT_UTF8;
}

bool
bloom_flags_read_utf8(uint8 flags)
{
	return bloom_database_text_is_utf8(GetDatabaseEncoding()) || (flags & BLOOM_FLAG_TEXT_UTF8) != 0;
}

uint8
bloom_combine_flags(const char *operation, uint8 a, uint8 b)
{
	if (a != b && !bloom_database_text_is_utf8(GetDatabaseEncoding()))
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("%s: the filters hash text differently", operation),
				errdetail("One filter hashes text as UTF-8; the other, made before bloomfilter 1.2, as %s bytes.",
						  GetDatabaseEncodingName()),
				errhint("Rebuild the older filter with bloom_agg or bloom_agg_like, or build the newer one with bloom_agg_like using the older one as its template."));
	return a | b;
}

/*
 * Whether a value of the type may carry text through its send function, so
 * that its bytes depend on the encoding: string types, json, jsonb, xml,
 * text search types, enums, and arrays, ranges and composites of them.  A
 * type from an extension, and an anonymous record, may: they count as
 * carrying text.  Only such values set BLOOM_FLAG_TEXT_UTF8, so that a
 * filter of inet or interval values stays what 1.1 built.
 */
static bool
bloom_type_carries_text(Oid typid, int depth)
{
	HeapTuple	tuple;
	Form_pg_type type;
	bool		result;

	if (depth > 8 || typid == RECORDOID || typid >= FirstNormalObjectId)
		return true;
	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for type %u", typid);
	type = (Form_pg_type) GETSTRUCT(tuple);
	switch (type->typtype)
	{
		case TYPTYPE_ENUM:
			result = true;
			break;
		case TYPTYPE_DOMAIN:
			result = bloom_type_carries_text(type->typbasetype, depth + 1);
			break;
		case TYPTYPE_RANGE:
			result = bloom_type_carries_text(get_range_subtype(typid), depth + 1);
			break;
		case TYPTYPE_MULTIRANGE:
			result = bloom_type_carries_text(get_multirange_range(typid), depth + 1);
			break;
		case TYPTYPE_COMPOSITE:
			result = true;		/* a built-in row type: the system catalogs' */
			break;
		default:
			if (OidIsValid(type->typelem) && type->typcategory == TYPCATEGORY_ARRAY)
				result = bloom_type_carries_text(type->typelem, depth + 1);
			else
				result = type->typcategory == TYPCATEGORY_STRING ||
					type->typcategory == TYPCATEGORY_UNKNOWN ||
					typid == JSONOID || typid == JSONBOID || typid == JSONPATHOID ||
					typid == XMLOID || typid == TSVECTOROID || typid == TSQUERYOID ||
					typid == REFCURSOROID;
			break;
	}
	ReleaseSysCache(tuple);
	return result;
}

/*
 * The types with a canonical encoding of their own (the top of the file),
 * and the types whose values hash alike: the one table that says either.
 *
 * A group holds types whose equal values, by the equality operators
 * PostgreSQL joins them with (int4 = int8, float4 = float8, name = text,
 * date = timestamp, and the implicit casts int4 to numeric, varchar to
 * text, ...), have equal canonical bytes.  BLOOM_GROUP_SELF is a type whose
 * equal values have equal bytes, but only within the type: timestamptz has
 * timestamp's bytes, but equals a timestamp or a date only as the session's
 * TimeZone says; bpchar drops its trailing spaces as its equality does, but
 * varchar = bpchar compares as bpchar ('ab ' equals 'ab' there, and the
 * varchar keeps its space); and a type encoded by its send function
 * belongs here only when its equality is equality of its send output
 * (oid, time, "char", macaddr, inet; and every enum, whose label is its
 * send output).  Any other type is BLOOM_GROUP_NONE, even though it is
 * hashed: interval ('1 day' = '24 hours'), jsonb (1.0 = 1), arrays (whose
 * numeric elements keep their scale), citext and the like have equal
 * values with different bytes.  sql/hash_alike.sql checks the groups
 * against real hashing, for every pair of types that PostgreSQL's
 * equalities join.
 */
typedef struct BloomTypeEncoding
{
	Oid			typid;
	BloomEncoding encoding;
	BloomEncodingGroup group;
} BloomTypeEncoding;

static const BloomTypeEncoding bloom_type_encodings[] = {
	{INT2OID, BLOOM_ENCODE_INT2, BLOOM_GROUP_INTEGER},
	{INT4OID, BLOOM_ENCODE_INT4, BLOOM_GROUP_INTEGER},
	{INT8OID, BLOOM_ENCODE_INT8, BLOOM_GROUP_INTEGER},
	{NUMERICOID, BLOOM_ENCODE_NUMERIC, BLOOM_GROUP_INTEGER},
	{FLOAT4OID, BLOOM_ENCODE_FLOAT4, BLOOM_GROUP_FLOAT},
	{FLOAT8OID, BLOOM_ENCODE_FLOAT8, BLOOM_GROUP_FLOAT},
	{TEXTOID, BLOOM_ENCODE_TEXT, BLOOM_GROUP_TEXT},
	{VARCHAROID, BLOOM_ENCODE_TEXT, BLOOM_GROUP_TEXT},
	{BPCHAROID, BLOOM_ENCODE_BPCHAR, BLOOM_GROUP_SELF},
	{NAMEOID, BLOOM_ENCODE_NAME, BLOOM_GROUP_TEXT},
	{DATEOID, BLOOM_ENCODE_DATE, BLOOM_GROUP_DATE},
	{TIMESTAMPOID, BLOOM_ENCODE_TIMESTAMP, BLOOM_GROUP_DATE},
	{TIMESTAMPTZOID, BLOOM_ENCODE_TIMESTAMP, BLOOM_GROUP_SELF},
	{BYTEAOID, BLOOM_ENCODE_BYTEA, BLOOM_GROUP_SELF},
	{UUIDOID, BLOOM_ENCODE_UUID, BLOOM_GROUP_SELF},
	{BOOLOID, BLOOM_ENCODE_BOOL, BLOOM_GROUP_SELF},
	{OIDOID, BLOOM_ENCODE_SEND, BLOOM_GROUP_SELF},
	{TIMEOID, BLOOM_ENCODE_SEND, BLOOM_GROUP_SELF},
	{CHAROID, BLOOM_ENCODE_SEND, BLOOM_GROUP_SELF},
	{MACADDROID, BLOOM_ENCODE_SEND, BLOOM_GROUP_SELF},
	{INETOID, BLOOM_ENCODE_SEND, BLOOM_GROUP_SELF},
};

/* The table's entry for a base type, or NULL. */
static const BloomTypeEncoding *
bloom_type_encoding(Oid base_typid)
{
	for (int i = 0; i < lengthof(bloom_type_encodings); i++)
		if (bloom_type_encodings[i].typid == base_typid)
			return &bloom_type_encodings[i];
	return NULL;
}

BloomEncodingGroup
bloom_encoding_group(Oid typid)
{
	Oid			base_typid = getBaseType(typid);
	const BloomTypeEncoding *entry = bloom_type_encoding(base_typid);

	if (entry != NULL)
		return entry->group;
	return type_is_enum(base_typid) ? BLOOM_GROUP_SELF : BLOOM_GROUP_NONE;
}

bool
bloom_types_hash_alike(Oid a, Oid b)
{
	BloomEncodingGroup group = bloom_encoding_group(a);

	if (group == BLOOM_GROUP_NONE || group != bloom_encoding_group(b))
		return false;
	return group != BLOOM_GROUP_SELF || getBaseType(a) == getBaseType(b);
}

BloomEncoder *
bloom_encoder_create(Oid typid, MemoryContext mcxt)
{
	BloomEncoder *encoder = MemoryContextAllocZero(mcxt, sizeof(BloomEncoder));
	Oid			base_typid = getBaseType(typid);
	const BloomTypeEncoding *entry = bloom_type_encoding(base_typid);
	HeapTuple	tuple;
	Oid			send_function;

	encoder->typid = typid;
	encoder->database_encoding = GetDatabaseEncoding();
	encoder->mcxt = mcxt;
	if (entry != NULL && entry->encoding != BLOOM_ENCODE_SEND)
	{
		encoder->encoding = entry->encoding;
		return encoder;
	}

	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(base_typid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for type %u", base_typid);
	send_function = ((Form_pg_type) GETSTRUCT(tuple))->typsend;
	ReleaseSysCache(tuple);

	if (!OidIsValid(send_function))
		ereport(ERROR,
				errcode(ERRCODE_UNDEFINED_FUNCTION),
				errmsg("cannot hash values of type %s for a bloom filter",
					   format_type_be(typid)),
				errdetail("Type %s has no binary send function, which bloom filters use to hash values of types without a built-in encoding.",
						  format_type_be(base_typid)));
	encoder->encoding = BLOOM_ENCODE_SEND;
	encoder->send_carries_text = bloom_type_carries_text(base_typid, 0);
	fmgr_info_cxt(send_function, &encoder->send_function, mcxt);
	return encoder;
}

/*
 * The send functions of arrays, composites, ranges and multiranges need one
 * for every element, field or bound in turn (a row type with an aclitem
 * field has MCVs, and hashing them raised an ERROR in EXPLAIN).  An
 * anonymous record's fields are not known here: false.
 */
bool
bloom_encoding_supported(Oid typid)
{
	Oid			base_typid = getBaseType(typid);
	const BloomTypeEncoding *entry = bloom_type_encoding(base_typid);
	HeapTuple	tuple;
	Form_pg_type type;
	bool		supported;
	char		typtype;
	Oid			typrelid;
	Oid			element_typid;

	check_stack_depth();
	if (entry != NULL && entry->encoding != BLOOM_ENCODE_SEND)
		return true;
	if (base_typid == RECORDOID)
		return false;
	tuple = SearchSysCache1(TYPEOID, ObjectIdGetDatum(base_typid));
	if (!HeapTupleIsValid(tuple))
		return false;
	type = (Form_pg_type) GETSTRUCT(tuple);
	supported = OidIsValid(type->typsend);
	typtype = type->typtype;
	typrelid = type->typrelid;
	ReleaseSysCache(tuple);
	if (!supported)
		return false;

	element_typid = get_element_type(base_typid);
	if (OidIsValid(element_typid))
		return bloom_encoding_supported(element_typid);
	if (typtype == TYPTYPE_RANGE)
		return bloom_encoding_supported(get_range_subtype(base_typid));
	if (typtype == TYPTYPE_MULTIRANGE)
		return bloom_encoding_supported(get_multirange_range(base_typid));
	if (typtype == TYPTYPE_COMPOSITE && OidIsValid(typrelid))
	{
		TupleDesc	tupdesc = lookup_rowtype_tupdesc(base_typid, -1);

		for (int i = 0; i < tupdesc->natts && supported; i++)
		{
			Form_pg_attribute attribute = TupleDescAttr(tupdesc, i);

			if (!attribute->attisdropped)
				supported = bloom_encoding_supported(attribute->atttypid);
		}
		ReleaseTupleDesc(tupdesc);
	}
	return supported;
}

bf_hash
bloom_hash_float8(float8 value)
{
	StaticAssertStmt(sizeof(uint64) == sizeof(value), "float8 is 64 bits");
	return bloom_hash_uint64(bf_float8_canonical_bits(value));
}

/*
 * Parse the numeric_normalize() text of an integral value; false if it is not
 * one or is outside int64 range.  The text is digits with an optional leading
 * '-' and no leading zeros, or "NaN"/"Infinity"/"-Infinity", or has a '.'.
 */
static bool
bloom_normalized_numeric_to_int64(const char *text, int64 *result)
{
	const char *digit = text;
	bool		negative = false;
	uint64		magnitude = 0;
	uint64		limit;

	if (*digit == '-')
	{
		negative = true;
		digit++;
	}
	if (*digit == '\0')
		return false;
	limit = negative ? (uint64) PG_INT64_MAX + 1 : (uint64) PG_INT64_MAX;
	for (; *digit != '\0'; digit++)
	{
		uint64		d;

		if (*digit < '0' || *digit > '9')
			return false;
		d = (uint64) (*digit - '0');
		if (magnitude > (limit - d) / 10)
			return false;
		magnitude = magnitude * 10 + d;
	}
	*result = negative ? (int64) (0 - magnitude) : (int64) magnitude;
	return true;
}

bf_hash
bloom_hash_numeric(Datum value)
{
	Numeric		number = DatumGetNumeric(value);
	char	   *text = numeric_normalize(number);
	int64		integer;
	bf_hash		hash;

	if (bloom_normalized_numeric_to_int64(text, &integer))
		hash = bloom_hash_int64(integer);
	else
		hash = bf_hash_bytes(text, strlen(text));
	pfree(text);
	if ((Pointer) number != DatumGetPointer(value))
		pfree(number);
	return hash;
}


/*
 * Whether bytes[0, len) are all ASCII: then they are the same in every server
 * encoding.  Whole 8-byte words, the last one overlapping its neighbour.
 */
static inline bool
bloom_bytes_are_ascii(const char *bytes, size_t len)
{
	uint64		high = 0;
	uint64		word;

	if (len < sizeof(word))
	{
		for (size_t i = 0; i < len; i++)
			high |= (unsigned char) bytes[i];
		return (high & 0x80) == 0;
	}
	for (size_t i = 0; i + sizeof(word) < len; i += sizeof(word))
	{
		memcpy(&word, bytes + i, sizeof(word));
		high |= word;
	}
	memcpy(&word, bytes + len - sizeof(word), sizeof(word));
	high |= word;
	return (high & UINT64CONST(0x8080808080808080)) == 0;
}

/*
 * Non-ASCII text in a database that is not UTF8, for a filter that reads
 * text as UTF-8: converted, then hashed.
 */
static pg_noinline bf_hash
bloom_hash_text_as_utf8(BloomEncoder *encoder, const char *data, size_t len)
{
	bf_hash		hash;
	unsigned char *utf8;

	if (!encoder->to_utf8_ready)
	{
		Oid			proc = FindDefaultConversionProc(encoder->database_encoding, PG_UTF8);

		if (!OidIsValid(proc))
			ereport(ERROR,
					errcode(ERRCODE_UNDEFINED_FUNCTION),
					errmsg("no conversion from %s to UTF8 to hash text for a bloom filter",
						   GetDatabaseEncodingName()));
		fmgr_info_cxt(proc, &encoder->to_utf8, encoder->mcxt);
		encoder->to_utf8_ready = true;
	}
	if (len >= MaxAllocHugeSize / MAX_CONVERSION_GROWTH)
		ereport(ERROR,
				errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				errmsg("out of memory"),
				errdetail("String of %zu bytes is too long for encoding conversion.", len));
	utf8 = MemoryContextAllocHuge(CurrentMemoryContext, len * MAX_CONVERSION_GROWTH + 1);
	FunctionCall6(&encoder->to_utf8,
				  Int32GetDatum(encoder->database_encoding),
				  Int32GetDatum(PG_UTF8),
				  CStringGetDatum(data),
				  CStringGetDatum((char *) utf8),
				  Int32GetDatum((int32) len),
				  BoolGetDatum(false));
	hash = bf_hash_bytes(utf8, strlen((char *) utf8));
	pfree(utf8);
	return hash;
}

/*
 * Text of len bytes in the database encoding, hashed as the filter reads
 * text: converted to UTF-8 in a database of another encoding when the
 * filter has the flag, as it is otherwise.  Inline: in a UTF8 database a
 * lookup is the hash alone, and an add the ASCII test until the flag is set.
 */
static pg_attribute_always_inline bf_hash
bloom_hash_text(BloomEncoder *encoder, const char *data, size_t len,
				uint8 flags, uint8 *flags_out)
{
	if (likely(bloom_database_text_is_utf8(encoder->database_encoding)))
	{
		if (flags_out != NULL && (*flags_out & BLOOM_FLAG_TEXT_UTF8) == 0 &&
			!bloom_bytes_are_ascii(data, len))
			*flags_out |= BLOOM_FLAG_TEXT_UTF8;
		return bf_hash_bytes(data, len);
	}
	if ((flags & BLOOM_FLAG_TEXT_UTF8) == 0 || bloom_bytes_are_ascii(data, len))
		return bf_hash_bytes(data, len);
	return bloom_hash_text_as_utf8(encoder, data, len);
}

/*
 * The value's send function, run with the client encoding the filter reads
 * text in: UTF-8 for a filter with the flag in a database of another
 * encoding, the database's own (no conversion) in every other case; in a
 * SQL_ASCII database that also spares the check that the bytes are valid
 * in the client encoding.  The session's client encoding is put back
 * however the call ends.
 */
static bytea *
bloom_send_canonical(BloomEncoder *encoder, Datum value, uint8 flags)
{
	int			target = encoder->database_encoding;
	int			session = pg_get_client_encoding();
	bytea	   *volatile bytes = NULL;

	if (!bloom_database_text_is_utf8(target) && (flags & BLOOM_FLAG_TEXT_UTF8) != 0)
		target = PG_UTF8;
	if (session == target)
		return SendFunctionCall(&encoder->send_function, value);

	/* SetClientEncoding finds only conversions prepared in a transaction. */
	if (target == PG_UTF8 && !encoder->client_utf8_ready)
	{
		if (PrepareClientEncoding(PG_UTF8) < 0)
			ereport(ERROR,
					errcode(ERRCODE_UNDEFINED_FUNCTION),
					errmsg("no conversion from %s to UTF8 to hash a value of type %s for a bloom filter",
						   GetDatabaseEncodingName(), format_type_be(encoder->typid)));
		encoder->client_utf8_ready = true;
	}
	if (SetClientEncoding(target) < 0)
		elog(ERROR, "cannot switch the client encoding to %s to hash a value",
			 pg_encoding_to_char(target));
	PG_TRY();
	{
		bytes = SendFunctionCall(&encoder->send_function, value);
	}
	PG_FINALLY();
	{
		/* The session's encoding was set before, so its conversion is prepared. */
		if (SetClientEncoding(session) < 0)
			elog(FATAL, "cannot restore client encoding %s after hashing a value",
				 pg_encoding_to_char(session));
	}
	PG_END_TRY();
	return bytes;
}

/* text, varchar and bpchar (without trailing spaces), and bytea */
bf_hash
bloom_hash_varlena(BloomEncoder *encoder, Datum value, uint8 flags, uint8 *flags_out)
{
	struct varlena *datum = PG_DETOAST_DATUM_PACKED(value);
	const char *data = VARDATA_ANY(datum);
	int			len = VARSIZE_ANY_EXHDR(datum);
	bf_hash		hash;

	if (encoder->encoding == BLOOM_ENCODE_BYTEA)
		hash = bf_hash_bytes(data, len);
	else
	{
		if (encoder->encoding == BLOOM_ENCODE_BPCHAR)
			len = bpchartruelen(unconstify(char *, data), len);
		hash = bloom_hash_text(encoder, data, len, flags, flags_out);
	}
	if ((Pointer) datum != DatumGetPointer(value))
		pfree(datum);
	return hash;
}

/* name and the send-encoded types */
bf_hash
bloom_hash_other(BloomEncoder *encoder, Datum value, uint8 flags, uint8 *flags_out)
{
	switch (encoder->encoding)
	{
		case BLOOM_ENCODE_NAME:
			{
				const char *name = NameStr(*DatumGetName(value));

				return bloom_hash_text(encoder, name, strnlen(name, NAMEDATALEN),
									   flags, flags_out);
			}
		case BLOOM_ENCODE_SEND:
			{
				bytea	   *bytes = bloom_send_canonical(encoder, value, flags);
				const char *data = VARDATA(bytes);
				size_t		len = VARSIZE(bytes) - VARHDRSZ;
				bf_hash		hash = bf_hash_bytes(data, len);

				if (flags_out != NULL && (*flags_out & BLOOM_FLAG_TEXT_UTF8) == 0 &&
					encoder->send_carries_text &&
					bloom_database_text_is_utf8(encoder->database_encoding) &&
					!bloom_bytes_are_ascii(data, len))
					*flags_out |= BLOOM_FLAG_TEXT_UTF8;
				pfree(bytes);
				return hash;
			}
		default:
			break;
	}
	elog(ERROR, "unexpected bloom encoding %d", (int) encoder->encoding);
	pg_unreachable();
}
