/*
 * bloom_element.c: values to hashes, and the element operations bloom_add,
 * bloom_contains and bloom_contained_by.
 *
 * A filter only answers "was this value added?" correctly if a value is
 * turned into the same bytes every time, on every machine, by every release.
 * Hash scheme 1 therefore hashes (XXH3-128, see core_probe.h) a canonical
 * encoding of the value, chosen so that values SQL considers equal across
 * the common types hash equally:
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
 *   text, varchar, bpchar,  the string's bytes in the database encoding, with
 *   name                    no length word or terminator; bpchar without its
 *                           trailing spaces, as bpchar compares
 *   bytea                   the raw bytes
 *   uuid                    the 16 bytes as stored
 *   date                    the timestamp of its midnight (a date beyond
 *                           timestamp's range: days * 86400000000 modulo 2^64);
 *                           -infinity and infinity as the timestamp ones
 *   timestamp, timestamptz  the int64 microseconds since 2000-01-01 (UTC), 8
 *                           bytes little-endian
 *   boolean                 1 byte, 0 or 1
 *   any other type          the bytes its binary send function produces
 *
 * Domains are encoded as their base type.  These encodings are part of the
 * stored format: a filter written today must still find its values after an
 * upgrade, so they never change under scheme 1 (sql/hashing.sql pins them).
 *
 * The type is resolved once per call site into an encoder; per row there is
 * one switch, a few stores and the hash.
 */
#include "bloom_pg.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

/* The canonical NaN: every NaN payload hashes as this one. */
#define BLOOM_CANONICAL_NAN_BITS UINT64CONST(0x7ff8000000000000)

BloomEncoder *
bloom_encoder_create(Oid typid, MemoryContext mcxt)
{
	BloomEncoder *encoder = MemoryContextAllocZero(mcxt, sizeof(BloomEncoder));
	Oid			base_typid = getBaseType(typid);

	encoder->typid = typid;
	switch (base_typid)
	{
		case INT2OID:
			encoder->encoding = BLOOM_ENCODE_INT2;
			break;
		case INT4OID:
			encoder->encoding = BLOOM_ENCODE_INT4;
			break;
		case INT8OID:
			encoder->encoding = BLOOM_ENCODE_INT8;
			break;
		case NUMERICOID:
			encoder->encoding = BLOOM_ENCODE_NUMERIC;
			break;
		case FLOAT4OID:
			encoder->encoding = BLOOM_ENCODE_FLOAT4;
			break;
		case FLOAT8OID:
			encoder->encoding = BLOOM_ENCODE_FLOAT8;
			break;
		case TEXTOID:
		case VARCHAROID:
		case BYTEAOID:
			encoder->encoding = BLOOM_ENCODE_VARLENA_BYTES;
			break;
		case BPCHAROID:
			encoder->encoding = BLOOM_ENCODE_BPCHAR;
			break;
		case NAMEOID:
			encoder->encoding = BLOOM_ENCODE_NAME;
			break;
		case UUIDOID:
			encoder->encoding = BLOOM_ENCODE_UUID;
			break;
		case DATEOID:
			encoder->encoding = BLOOM_ENCODE_DATE;
			break;
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			encoder->encoding = BLOOM_ENCODE_TIMESTAMP;
			break;
		case BOOLOID:
			encoder->encoding = BLOOM_ENCODE_BOOL;
			break;
		default:
			{
				HeapTuple	tuple;
				Oid			send_function;

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
				fmgr_info_cxt(send_function, &encoder->send_function, mcxt);
			}
			break;
	}
	return encoder;
}

static inline bf_hash
bloom_hash_float8(float8 value)
{
	uint64		bits;

	if (isnan(value))
		bits = BLOOM_CANONICAL_NAN_BITS;
	else
	{
		if (value == 0.0)
			value = 0.0;		/* -0 compares equal to +0 */
		StaticAssertStmt(sizeof(bits) == sizeof(value), "float8 is 64 bits");
		memcpy(&bits, &value, sizeof(bits));
	}
	return bloom_hash_uint64(bits);
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

static pg_noinline bf_hash
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

/* text, varchar, bytea, and bpchar (trim_spaces): the payload, detoasted once */
static pg_noinline bf_hash
bloom_hash_varlena(Datum value, bool trim_spaces)
{
	struct varlena *datum = PG_DETOAST_DATUM_PACKED(value);
	char	   *data = VARDATA_ANY(datum);
	int			len = VARSIZE_ANY_EXHDR(datum);
	bf_hash		hash;

	if (trim_spaces)
		len = bpchartruelen(data, len);
	hash = bf_hash_bytes(data, len);
	if ((Pointer) datum != DatumGetPointer(value))
		pfree(datum);
	return hash;
}

static pg_noinline bf_hash
bloom_hash_send(BloomEncoder *encoder, Datum value)
{
	bytea	   *bytes = SendFunctionCall(&encoder->send_function, value);
	bf_hash		hash = bf_hash_bytes(VARDATA(bytes), VARSIZE(bytes) - VARHDRSZ);

	pfree(bytes);
	return hash;
}

/*
 * Inlined into the membership test: the fixed-width cases become a few
 * stores and the short-input path of XXH3; the others are calls.
 */
static pg_attribute_always_inline bf_hash
bloom_encode_and_hash(BloomEncoder *encoder, Datum value)
{
	bf_hash		hash;

	if (bloom_encoder_hash_integer(encoder, value, &hash))
		return hash;
	switch (encoder->encoding)
	{
		case BLOOM_ENCODE_INT2:
		case BLOOM_ENCODE_INT4:
		case BLOOM_ENCODE_INT8:
			break;				/* hashed above */
		case BLOOM_ENCODE_NUMERIC:
			return bloom_hash_numeric(value);
		case BLOOM_ENCODE_FLOAT4:
			return bloom_hash_float8((float8) DatumGetFloat4(value));
		case BLOOM_ENCODE_FLOAT8:
			return bloom_hash_float8(DatumGetFloat8(value));
		case BLOOM_ENCODE_VARLENA_BYTES:
			return bloom_hash_varlena(value, false);
		case BLOOM_ENCODE_BPCHAR:
			return bloom_hash_varlena(value, true);
		case BLOOM_ENCODE_NAME:
			{
				const char *name = NameStr(*DatumGetName(value));

				return bf_hash_bytes(name, strnlen(name, NAMEDATALEN));
			}
		case BLOOM_ENCODE_UUID:
			return bf_hash_bytes(DatumGetUUIDP(value)->data, UUID_LEN);
		case BLOOM_ENCODE_DATE:
			{
				DateADT		date = DatumGetDateADT(value);

				if (DATE_IS_NOBEGIN(date))
					return bloom_hash_int64(DT_NOBEGIN);
				if (DATE_IS_NOEND(date))
					return bloom_hash_int64(DT_NOEND);
				/* wraps only beyond timestamp's range, where no timestamp is equal */
				return bloom_hash_uint64((uint64) (int64) date * (uint64) USECS_PER_DAY);
			}
		case BLOOM_ENCODE_TIMESTAMP:
			return bloom_hash_int64(DatumGetTimestamp(value));
		case BLOOM_ENCODE_BOOL:
			{
				uint8		byte = DatumGetBool(value) ? 1 : 0;

				return bf_hash_bytes(&byte, 1);
			}
		case BLOOM_ENCODE_SEND:
			return bloom_hash_send(encoder, value);
	}
	elog(ERROR, "unexpected bloom encoding %d", (int) encoder->encoding);
	pg_unreachable();
}

bf_hash
bloom_encoder_hash(BloomEncoder *encoder, Datum value)
{
	return bloom_encode_and_hash(encoder, value);
}

/*
 * A view's hash scheme was checked when it was read (bf_check_header), so
 * only a scheme accepted there but not implemented here gets this far: an
 * internal error, not one a user can cause.
 */
pg_noreturn static void
bloom_unexpected_hash_scheme(const BloomView *view)
{
	elog(ERROR, "unexpected bloom hash scheme %u", view->header.hash_scheme);
	pg_unreachable();
}

/* The membership test both contains functions share: the semi-join hot path. */
static pg_attribute_always_inline bool
bloom_test_arguments(FunctionCallInfo fcinfo, int filter_argno, int value_argno)
{
	BloomView	view;
	BloomEncoder *encoder;
	bf_hash		hash;

	bloom_getarg(fcinfo, filter_argno, &view);
	encoder = bloom_call_encoder(fcinfo, value_argno);
	hash = bloom_encode_and_hash(encoder, PG_GETARG_DATUM(value_argno));
	/* a constant scheme in each case, so that each inlines one path */
	switch (view.header.hash_scheme)
	{
		case BLOOM_HASH_XXH3_EDH:
			return bf_contains(view.bits, view.header.m, view.header.k, BLOOM_HASH_XXH3_EDH, hash);
		case BLOOM_HASH_XXH3_BLOCKED:
			return bf_contains(view.bits, view.header.m, view.header.k, BLOOM_HASH_XXH3_BLOCKED,
							   hash);
	}
	bloom_unexpected_hash_scheme(&view);
}

PG_FUNCTION_INFO_V1(bloom_add);
Datum
bloom_add(PG_FUNCTION_ARGS)
{
	BloomView	view;
	BloomEncoder *encoder;
	BloomFilter *filter;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	/* A NULL value leaves the filter as it is: the very same datum. */
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	bloom_getarg(fcinfo, 0, &view);
	encoder = bloom_call_encoder(fcinfo, 1);
	filter = bloom_copy(&view);
	switch (view.header.hash_scheme)
	{
		case BLOOM_HASH_XXH3_EDH:
		case BLOOM_HASH_XXH3_BLOCKED:
			bf_add(filter->bits, filter->m, filter->k, filter->hash_scheme,
				   bloom_encode_and_hash(encoder, PG_GETARG_DATUM(1)));
			break;
		default:
			bloom_unexpected_hash_scheme(&view);
	}
	PG_RETURN_POINTER(filter);
}

PG_FUNCTION_INFO_V1(bloom_contains);
Datum
bloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bloom_test_arguments(fcinfo, 0, 1));
}

PG_FUNCTION_INFO_V1(bloom_contained_by);
Datum
bloom_contained_by(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(bloom_test_arguments(fcinfo, 1, 0));
}
