/*
 * types/bloom_hashed.c: the type bloom_hashed, a value hashed once, and the
 * function bloom_value(anyelement) that makes one (a function named after
 * its type would be taken for a cast from text).
 *
 * Citus splits an aggregate between its workers and its coordinator only
 * when the aggregate's declared argument types are the types of its
 * arguments: it refuses a polymorphic one (worker_partial_agg "could not
 * confirm type correctness").  bloom_agg(bloom_value(x), ...) has none: the
 * workers hash the values next to the rows, and the aggregate adds the
 * hashes.  The hash is the one bloom_add takes (encoding/encoding.c), so the
 * filter is bit for bit the one bloom_agg(x, ...) builds.
 *
 * Binary form (send, recv), which the text form spells in hex after
 * "bloom_hashed:":
 *
 *     offset  size  field
 *     0       1     version        BLOOM_HASHED_VERSION
 *     1       1     flags          the BLOOM_FLAG_* that adding the value sets
 *     2       1     utf8_reading   1: text was read as UTF-8; 0: as the bytes
 *                                  of the database encoding (encoding/encoding.c)
 *     3       8     h1             little-endian
 *     11      8     h2             little-endian
 *
 * This layout must never change silently: a new one takes a new version.
 */
#include "postgres.h"

#include "types/types.h"

#include "libpq/pqformat.h"

#define BLOOM_HASHED_BINARY_BYTES 19
#define BLOOM_HASHED_TEXT_PREFIX "bloom_hashed:"

PG_FUNCTION_INFO_V1(bloom_value);
Datum
bloom_value(PG_FUNCTION_ARGS)
{
	BloomEncoder *encoder = bloom_call_encoder(fcinfo, 0);
	uint8		flags = bloom_new_filter_flags();
	BloomHashed *result = (BloomHashed *) palloc0(sizeof(BloomHashed));
	bf_hash		hash;

	result->flags = flags;
	hash = bloom_encoder_hash(encoder, PG_GETARG_DATUM(0), flags, &result->flags);
	result->h1 = hash.h1;
	result->h2 = hash.h2;
	result->version = BLOOM_HASHED_VERSION;
	result->utf8_reading = bloom_flags_read_utf8(flags) ? 1 : 0;
	PG_RETURN_POINTER(result);
}

bf_hash
bloom_hashed_hash(const BloomHashed *v, uint8 *filter_flags, const char *function)
{
	bf_hash		hash = {v->h1, v->h2};

	if ((bloom_flags_read_utf8(*filter_flags) ? 1 : 0) != v->utf8_reading)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("%s: the filter hashes text otherwise than the value was hashed", function),
				errdetail("The value was hashed reading text as %s; the filter reads it as %s.",
						  v->utf8_reading ? "UTF-8" : "the database encoding's bytes",
						  v->utf8_reading ? "the database encoding's bytes" : "UTF-8"),
				errhint("Add the value itself (bloom_add, bloom_agg_like) rather than its bloom_value()."));
	*filter_flags |= v->flags;
	return hash;
}

/* Read the binary form; NULL with *problem set when it does not hold together. */
static BloomHashed *
bloom_hashed_read(const uint8 *data, size_t length, const char **problem)
{
	BloomHashed *v;

	if (length != BLOOM_HASHED_BINARY_BYTES)
	{
		*problem = "A bloom_hashed has 19 bytes.";
		return NULL;
	}
	if (data[0] != BLOOM_HASHED_VERSION)
	{
		*problem = "The version is unknown.";
		return NULL;
	}
	if ((data[1] & ~BLOOM_FLAGS_KNOWN) != 0 || data[2] > 1)
	{
		*problem = "The flags are unknown.";
		return NULL;
	}
	/* a value whose text was read as the database's bytes cannot make a filter read UTF-8 */
	if ((data[1] & BLOOM_FLAG_TEXT_UTF8) != 0 && data[2] == 0)
	{
		*problem = "The value sets the UTF-8 flag but was not read as UTF-8.";
		return NULL;
	}
	v = (BloomHashed *) palloc0(sizeof(BloomHashed));
	v->version = data[0];
	v->flags = data[1];
	v->utf8_reading = data[2];
	v->h1 = bf_load_le64(data + 3);
	v->h2 = bf_load_le64(data + 11);
	return v;
}

static void
bloom_hashed_write(const BloomHashed *v, uint8 *out)
{
	out[0] = v->version;
	out[1] = v->flags;
	out[2] = v->utf8_reading;
	bf_store_le64(out + 3, v->h1);
	bf_store_le64(out + 11, v->h2);
}

PG_FUNCTION_INFO_V1(bloom_hashed_in);
Datum
bloom_hashed_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	size_t		prefix = strlen(BLOOM_HASHED_TEXT_PREFIX);
	uint8		data[BLOOM_HASHED_BINARY_BYTES];
	const char *problem = "The text is not \"" BLOOM_HASHED_TEXT_PREFIX "\" and 38 hexadecimal digits.";
	BloomHashed *v = NULL;

	if (strlen(text) == prefix + 2 * sizeof(data) &&
		memcmp(text, BLOOM_HASHED_TEXT_PREFIX, prefix) == 0)
	{
		bool		hex = true;

		for (size_t i = 0; i < sizeof(data) && hex; i++)
		{
			int			digits[2];

			for (int j = 0; j < 2; j++)
			{
				char		c = text[prefix + 2 * i + j];

				digits[j] = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
				hex = hex && digits[j] >= 0;
			}
			data[i] = (uint8) (digits[0] * 16 + digits[1]);
		}
		if (hex)
			v = bloom_hashed_read(data, sizeof(data), &problem);
	}
	if (v == NULL)
		ereturn(fcinfo->context, (Datum) 0,
				errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				errmsg("invalid input syntax for type bloom_hashed"),
				errdetail("%s", problem));
	PG_RETURN_POINTER(v);
}

PG_FUNCTION_INFO_V1(bloom_hashed_out);
Datum
bloom_hashed_out(PG_FUNCTION_ARGS)
{
	static const char hex[] = "0123456789abcdef";
	uint8		data[BLOOM_HASHED_BINARY_BYTES];
	size_t		prefix = strlen(BLOOM_HASHED_TEXT_PREFIX);
	char	   *text = palloc(prefix + 2 * sizeof(data) + 1);

	bloom_hashed_write((const BloomHashed *) PG_GETARG_POINTER(0), data);
	memcpy(text, BLOOM_HASHED_TEXT_PREFIX, prefix);
	for (size_t i = 0; i < sizeof(data); i++)
	{
		text[prefix + 2 * i] = hex[data[i] >> 4];
		text[prefix + 2 * i + 1] = hex[data[i] & 15];
	}
	text[prefix + 2 * sizeof(data)] = '\0';
	PG_RETURN_CSTRING(text);
}

PG_FUNCTION_INFO_V1(bloom_hashed_recv);
Datum
bloom_hashed_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	const char *problem = NULL;
	BloomHashed *v = bloom_hashed_read((const uint8 *) buf->data + buf->cursor,
									 buf->len - buf->cursor, &problem);

	if (v == NULL)
		bloom_raise_invalid_binary("bloom_hashed", problem);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(v);
}

PG_FUNCTION_INFO_V1(bloom_hashed_send);
Datum
bloom_hashed_send(PG_FUNCTION_ARGS)
{
	uint8		data[BLOOM_HASHED_BINARY_BYTES];
	StringInfoData buf;

	bloom_hashed_write((const BloomHashed *) PG_GETARG_POINTER(0), data);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) data, sizeof(data));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
