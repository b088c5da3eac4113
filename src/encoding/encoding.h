/*
 * encoding/encoding.h: values to hashes (encoding/encoding.c).
 *
 * An encoder is resolved once per call site from the value's type (domains
 * to their base type) and turns a non-NULL datum of that type into its
 * canonical bytes and then into a bf_hash.  How text reaches the hash
 * depends on the filter (its BLOOM_FLAG_TEXT_UTF8 flag) and on the database
 * encoding, so every hash takes the filter's flags; an add may set the flag
 * (encoding/encoding.c says when).
 */
#ifndef BLOOM_ENCODING_H
#define BLOOM_ENCODING_H

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "port/pg_bswap.h"
#include "utils/date.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "core/format.h"
#include "core/core.h"

typedef enum BloomEncoding
{
	BLOOM_ENCODE_INT2,
	BLOOM_ENCODE_INT4,
	BLOOM_ENCODE_INT8,
	BLOOM_ENCODE_NUMERIC,
	BLOOM_ENCODE_FLOAT4,
	BLOOM_ENCODE_FLOAT8,
	BLOOM_ENCODE_TEXT,			/* text, varchar: the payload, as text */
	BLOOM_ENCODE_BPCHAR,		/* the payload without trailing spaces */
	BLOOM_ENCODE_NAME,
	BLOOM_ENCODE_BYTEA,			/* the payload, never converted */
	BLOOM_ENCODE_UUID,
	BLOOM_ENCODE_DATE,
	BLOOM_ENCODE_TIMESTAMP,		/* timestamp and timestamptz */
	BLOOM_ENCODE_BOOL,
	BLOOM_ENCODE_SEND			/* the type's binary send function */
} BloomEncoding;

typedef struct BloomEncoder
{
	BloomEncoding encoding;
	Oid			typid;			/* as given, for messages */
	int			database_encoding;	/* GetDatabaseEncoding() */
	MemoryContext mcxt;			/* where the encoder and its FmgrInfos live */
	FmgrInfo	send_function;	/* BLOOM_ENCODE_SEND only */
	bool		send_carries_text;	/* its bytes may depend on the encoding */
	FmgrInfo	to_utf8;		/* database encoding to UTF-8, once needed */
	bool		to_utf8_ready;
	bool		client_utf8_ready;	/* PrepareClientEncoding(PG_UTF8) done */
} BloomEncoder;

extern BloomEncoder *bloom_encoder_create(Oid typid, MemoryContext mcxt);

/*
 * Whether values of the type can be hashed without an ERROR: a built-in
 * encoding, or a binary send function for it and for every element, field
 * or bound it holds.
 */
extern bool bloom_encoding_supported(Oid typid);

/*
 * Which types hash alike: groups of types whose equal values (by the
 * equality operators PostgreSQL joins them with, across types too) have
 * equal canonical bytes, so that a filter of values of one type finds the
 * equal values of another.  encoding/encoding.c's table of types is the one
 * place that says it; the automatic prefilter asks here, and the
 * documentation (reference.md, "What equal means to a filter") follows.
 */
typedef enum BloomEncodingGroup
{
	BLOOM_GROUP_NONE,			/* equal values may hash differently */
	BLOOM_GROUP_INTEGER,		/* int2, int4, int8, numeric */
	BLOOM_GROUP_FLOAT,			/* float4, float8 */
	BLOOM_GROUP_TEXT,			/* text, varchar, name */
	BLOOM_GROUP_DATE,			/* date, timestamp */
	BLOOM_GROUP_SELF			/* the type alone */
} BloomEncodingGroup;

/* The group of a type (a domain's is its base type's). */
extern BloomEncodingGroup bloom_encoding_group(Oid typid);

/* Whether equal values of the two types hash alike. */
extern bool bloom_types_hash_alike(Oid a, Oid b);

/* The flags a new filter gets in this database (BLOOM_FLAG_*). */
extern uint8 bloom_new_filter_flags(void);

/*
 * Whether a filter with these flags reads text as UTF-8 in this database
 * (always in a UTF8 or SQL_ASCII one; elsewhere when BLOOM_FLAG_TEXT_UTF8
 * is set), rather than as the database encoding's bytes.
 */
extern bool bloom_flags_read_utf8(uint8 flags);

/*
 * The flags of the union or intersection of filters with flags a and b,
 * or ERROR 22023 naming operation when their text hashing differs.
 */
extern uint8 bloom_combine_flags(const char *operation, uint8 a, uint8 b);

/*
 * The 8 bytes of value, little-endian whatever the host's byte order, hashed.
 * One 8-byte store (not eight 1-byte ones): XXH3 reads the bytes back as one
 * word, and a load that spans several smaller stores cannot be forwarded
 * from the store buffer.
 */
static inline bf_hash
bloom_hash_uint64(uint64 value)
{
	uint64		little_endian;

#ifdef WORDS_BIGENDIAN
	little_endian = pg_bswap64(value);
#else
	little_endian = value;
#endif
	return bf_hash_bytes(&little_endian, sizeof(little_endian));
}

static inline bf_hash
bloom_hash_int64(int64 value)
{
	return bloom_hash_uint64((uint64) value);
}

/* The encodings that are calls rather than a few inline stores. */
extern bf_hash bloom_hash_numeric(Datum value);
extern bf_hash bloom_hash_float8(float8 value);
extern bf_hash bloom_hash_varlena(BloomEncoder *encoder, Datum value,
								  uint8 flags, uint8 *flags_out);
extern bf_hash bloom_hash_other(BloomEncoder *encoder, Datum value,
								uint8 flags, uint8 *flags_out);

/*
 * The hash of value for a filter with the given flags.  flags_out is NULL
 * for a lookup; for an add it is the filter's flags, to which the value may
 * add BLOOM_FLAG_TEXT_UTF8.  Inline so that the integer cases of the
 * membership test and of bloom_agg's row path are a few stores and the
 * short-input path of XXH3.
 */
static pg_attribute_always_inline bf_hash
bloom_encoder_hash(BloomEncoder *encoder, Datum value, uint8 flags, uint8 *flags_out)
{
	switch (encoder->encoding)
	{
		case BLOOM_ENCODE_INT8:
			return bloom_hash_int64(DatumGetInt64(value));
		case BLOOM_ENCODE_INT4:
			return bloom_hash_int64(DatumGetInt32(value));
		case BLOOM_ENCODE_INT2:
			return bloom_hash_int64(DatumGetInt16(value));
		case BLOOM_ENCODE_FLOAT4:
			return bloom_hash_float8((float8) DatumGetFloat4(value));
		case BLOOM_ENCODE_FLOAT8:
			return bloom_hash_float8(DatumGetFloat8(value));
		case BLOOM_ENCODE_NUMERIC:
			return bloom_hash_numeric(value);
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
		case BLOOM_ENCODE_TEXT:
		case BLOOM_ENCODE_BPCHAR:
		case BLOOM_ENCODE_BYTEA:
			return bloom_hash_varlena(encoder, value, flags, flags_out);
		default:
			return bloom_hash_other(encoder, value, flags, flags_out);
	}
}

#endif							/* BLOOM_ENCODING_H */
