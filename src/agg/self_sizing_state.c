/*
 * agg/self_sizing_state.c: the self-sizing aggregates' state as a value
 * (agg/self_sizing.c has the state machine): its flat form, which the 1.2
 * aggregates' serialize and deserialize functions pass between processes;
 * the type bloom_agg_state, whose values are flat forms; and the 1.3
 * aggregates bloom_agg(bloom_hashed[, p]), whose states are its values,
 * expanded while they aggregate.
 */
#include "postgres.h"

#include "agg/self_sizing.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "utils/memutils.h"

/* ---- the flat form of a state ---- */

/*
 * The flat form of a state: a value of type bloom_agg_state (the
 * transition state of these aggregates from 1.3 on, which Citus moves from
 * its workers to the coordinator and a user may store), and the serialized
 * state of the 1.2 aggregates.  It may be stored and read on another
 * server, so its layout is fixed, little-endian, after the varlena header:
 *
 *     offset  size  field
 *     0       1     format version    BLOOM_AGG_STATE_VERSION
 *     1       1     phase             0 exact, 1 sketch, 2 sparse sketch
 *     2       1     flags             the result's BLOOM_FLAG_* (core/format.h)
 *     3       1     k                 round(log2(1/p)), as bf_auto_shape gives
 *     4       8     false_positive_rate, IEEE 754 binary64
 *     12      8     count             hashes (exact), or M (sketch)
 *     20            exact: count hashes, each h1 then h2 (8 bytes each),
 *                   distinct, none of them counted twice;
 *                   sketch: the M bits, laid out as a filter's (core/format.h);
 *                   sparse sketch: their sparse form (core/core.h), which is
 *                   written when it is shorter: a worker's share of the
 *                   values sets a few percent of a sketch's bits.
 *
 * This layout must never change silently: a new one takes a new version.
 * Readers check every field, as bloom_recv checks a filter.
 */
#define BLOOM_AGG_STATE_VERSION 1
#define BLOOM_AGG_STATE_HEADER_BYTES 20

#define BLOOM_AUTO_PHASE_EXACT 0
#define BLOOM_AUTO_PHASE_SKETCH 1
#define BLOOM_AUTO_PHASE_SPARSE_SKETCH 2

/* The flat form of state, in CurrentMemoryContext (sketch flushed first). */
static struct varlena *
bloom_autoagg_flatten(BloomAutoState *state)
{
	uint8		header[BLOOM_AGG_STATE_HEADER_BYTES];
	uint64		rate_bits;
	Size		payload;
	bytea	   *result;
	char	   *out;

	header[0] = BLOOM_AGG_STATE_VERSION;
	header[2] = state->flags;
	header[3] = (uint8) state->k;
	memcpy(&rate_bits, &state->request.false_positive_rate, sizeof(rate_bits));
	bf_store_le64(header + 4, rate_bits);
	Assert(state->sparse_sketch == NULL);
	if (bloom_autoagg_in_sketch(state))
	{
		/*
		 * Room for the sparse form at its longest: the pages past what it
		 * writes are never touched.  The bits themselves if it is longer.
		 */
		header[1] = BLOOM_AUTO_PHASE_SPARSE_SKETCH;
		bf_store_le64(header + 12, state->sketch_m);
		payload = bf_sparse_bound(bloom_payload_bytes(state->sketch_m));
	}
	else
	{
		header[1] = BLOOM_AUTO_PHASE_EXACT;
		bf_store_le64(header + 12, state->set.count);
		payload = mul_size(state->set.count, sizeof(bf_hash));
	}

	result = bloom_agg_serial_new(add_size(sizeof(header), payload), &out);
	if (bloom_autoagg_in_sketch(state))
	{
		Size		nbytes = bloom_payload_bytes(state->sketch_m);

		/* straight from the adder's buffers, if the bits are not allocated yet */
		payload = 0;
		if (state->sketch == NULL)
			payload = bf_region_adder_sparse(state->adder, (uint8_t *) out + sizeof(header));
		if (payload == 0)
		{
			bloom_autoagg_flush(state);
			payload = bf_sparse_encode(state->sketch, nbytes, (uint8_t *) out + sizeof(header));
		}
		if (payload >= nbytes)
		{
			header[1] = BLOOM_AUTO_PHASE_SKETCH;
			payload = nbytes;
			bloom_fill_bits((uint8 *) out + sizeof(header), state->sketch, nbytes);
		}
		SET_VARSIZE(result, VARHDRSZ + sizeof(header) + payload);
	}
	else
	{
		bf_hashset_iter iter = {0, false};
		bf_hash		hash;
		uint8	   *next = (uint8 *) out + sizeof(header);

		while (bf_hashset_next(&state->set, &iter, &hash))
		{
			bf_store_le64(next, hash.h1);
			bf_store_le64(next + 8, hash.h2);
			next += sizeof(hash);
		}
	}
	memcpy(out, header, sizeof(header));
	return (struct varlena *) result;
}

/*
 * Read the flat form in data[0..length) into a new state in
 * CurrentMemoryContext, checking everything; NULL with *problem set (a
 * sentence for an errdetail) when it does not hold together.  A sketch is
 * read in place, never written: data must outlive the state.
 */
static BloomAutoState *
bloom_autoagg_read(const uint8 *data, Size length, const char **problem)
{
	BloomAutoState *state;
	uint64		rate_bits;
	double		p;
	uint64		count;
	uint32		k;
	uint64		sketch_m;
	const uint8 *payload = data + BLOOM_AGG_STATE_HEADER_BYTES;
	Size		remaining = length - BLOOM_AGG_STATE_HEADER_BYTES;

#define BLOOM_AUTO_BAD(sentence) do { *problem = (sentence); return NULL; } while (0)
	if (length < BLOOM_AGG_STATE_HEADER_BYTES)
		BLOOM_AUTO_BAD("The state is too short.");
	if (data[0] != BLOOM_AGG_STATE_VERSION)
		BLOOM_AUTO_BAD("The format version is unknown.");
	rate_bits = bf_load_le64(data + 4);
	memcpy(&p, &rate_bits, sizeof(p));
	count = bf_load_le64(data + 12);
	if (bf_auto_shape(p, &k, &sketch_m) != BF_OK || k != data[3])
		BLOOM_AUTO_BAD("The false-positive rate or k is not valid.");
	if ((data[2] & ~BLOOM_FLAGS_KNOWN) != 0)
		BLOOM_AUTO_BAD("The state has unknown flags.");

	state = bloom_autoagg_state_new(p);
	state->flags = data[2];
	switch (data[1])
	{
		case BLOOM_AUTO_PHASE_SKETCH:
			if (count != sketch_m || remaining != bloom_payload_bytes(sketch_m))
				BLOOM_AUTO_BAD("The sketch does not have the size its false-positive rate gives.");
			if (bf_check_bits(&(BloomHeader) {BLOOM_FORMAT_VERSION, BLOOM_HASH_XXH3_EDH, k, 0, sketch_m},
							  payload, remaining) != BF_OK)
				BLOOM_AUTO_BAD("The sketch has bits set past its end.");
			pfree(state->set.slots);
			memset(&state->set, 0, sizeof(state->set));
			state->sketch = (uint8 *) payload;
			state->sketch_borrowed = true;
			break;
		case BLOOM_AUTO_PHASE_SPARSE_SKETCH:
			if (count != sketch_m ||
				!bf_sparse_check(payload, remaining, bloom_payload_bytes(sketch_m)))
				BLOOM_AUTO_BAD("The sparse sketch does not have the size its false-positive rate gives, or is not well formed.");
			pfree(state->set.slots);
			memset(&state->set, 0, sizeof(state->set));
			state->sparse_sketch = payload;
			state->sparse_sketch_length = remaining;
			break;
		case BLOOM_AUTO_PHASE_EXACT:
			if (count > BF_AUTO_EXACT_LIMIT || remaining != count * sizeof(bf_hash))
				BLOOM_AUTO_BAD("The number of hashes is out of range or does not match the length.");
			for (uint64 i = 0; i < count; i++)
			{
				bf_hash		hash;

				hash.h1 = bf_load_le64(payload + i * sizeof(bf_hash));
				hash.h2 = bf_load_le64(payload + i * sizeof(bf_hash) + 8);
				bloom_autoagg_reserve(state, CurrentMemoryContext);
				if (!bf_hashset_add(&state->set, hash))
					BLOOM_AUTO_BAD("A hash appears twice.");
			}
			break;
		default:
			BLOOM_AUTO_BAD("The phase is unknown.");
	}
#undef BLOOM_AUTO_BAD
	return state;
}

/* The same, raising ERROR XX001 for a state passed between processes of a query. */
static BloomAutoState *
bloom_autoagg_read_passed(const struct varlena *flat)
{
	const char *problem = NULL;
	BloomAutoState *state = bloom_autoagg_read((const uint8 *) VARDATA_ANY(flat),
											   VARSIZE_ANY_EXHDR(flat), &problem);

	if (state == NULL)
		bloom_agg_raise_corrupt(problem);
	return state;
}

/* ---- the 1.2 aggregates' serialized state: the flat form ---- */

PG_FUNCTION_INFO_V1(bloom_autoagg_serialfn);
Datum
bloom_autoagg_serialfn(PG_FUNCTION_ARGS)
{
	bloom_agg_context(fcinfo, "bloom_autoagg_serialfn");
	PG_RETURN_POINTER(bloom_autoagg_flatten((BloomAutoState *) PG_GETARG_POINTER(0)));
}

PG_FUNCTION_INFO_V1(bloom_autoagg_deserialfn);
Datum
bloom_autoagg_deserialfn(PG_FUNCTION_ARGS)
{
	bloom_agg_context(fcinfo, "bloom_autoagg_deserialfn");
	PG_RETURN_POINTER(bloom_autoagg_read_passed(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0))));
}

/* ---- the type bloom_agg_state ---- */

/*
 * Text form: "bloom_agg_state:" and the base64 of the flat form (the
 * binary form, which send and recv use).
 */
#define BLOOM_AGG_STATE_TEXT_PREFIX "bloom_agg_state:"

/* A copy of the flat form in data[0..length) as a value, if it checks out. */
static struct varlena *
bloom_agg_state_value(const uint8 *data, Size length, const char **problem)
{
	struct varlena *value;
	BloomAutoState *state;

	if (length > MaxAllocSize - VARHDRSZ)
	{
		*problem = "The state is larger than a value can be.";
		return NULL;
	}
	state = bloom_autoagg_read(data, length, problem);
	if (state == NULL)
		return NULL;
	if (state->set.slots != NULL)
		pfree(state->set.slots);
	pfree(state);
	value = (struct varlena *) bloom_palloc_large(VARHDRSZ + length);
	SET_VARSIZE(value, VARHDRSZ + length);
	memcpy(VARDATA(value), data, length);
	return value;
}

PG_FUNCTION_INFO_V1(bloom_agg_state_in);
Datum
bloom_agg_state_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	Size		prefix = strlen(BLOOM_AGG_STATE_TEXT_PREFIX);
	Size		length = strlen(text);
	const char *problem = "The text does not start with \"" BLOOM_AGG_STATE_TEXT_PREFIX "\".";
	struct varlena *value = NULL;

	if (length >= prefix && memcmp(text, BLOOM_AGG_STATE_TEXT_PREFIX, prefix) == 0)
	{
		const char *base64 = text + prefix;
		Size		chars = length - prefix;
		Size		nbytes = chars / 4 * 3;

		/* the decoded length, from the padding; the decoder checks the rest */
		if (chars >= 1 && base64[chars - 1] == '=')
			nbytes--;
		if (chars >= 2 && base64[chars - 2] == '=')
			nbytes--;
		if (chars % 4 != 0 || bf_base64_length(nbytes) != chars)
			problem = "The base64 is not well formed.";
		else
		{
			uint8	   *data = (uint8 *) bloom_palloc_large(Max(nbytes, 1));

			if (bf_base64_decode(base64, chars, data, nbytes) != BF_OK)
				problem = "The base64 is not well formed.";
			else
				value = bloom_agg_state_value(data, nbytes, &problem);
			pfree(data);
		}
	}
	if (value == NULL)
		ereturn(fcinfo->context, (Datum) 0,
				errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				errmsg("invalid input syntax for type bloom_agg_state"),
				errdetail("%s", problem));
	PG_RETURN_POINTER(value);
}

PG_FUNCTION_INFO_V1(bloom_agg_state_out);
Datum
bloom_agg_state_out(PG_FUNCTION_ARGS)
{
	/* an aggregate's state in memory is flattened here (bloom_autoagg_object_kind) */
	struct varlena *flat = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	Size		nbytes = VARSIZE_ANY_EXHDR(flat);
	Size		prefix = strlen(BLOOM_AGG_STATE_TEXT_PREFIX);
	uint64		length = prefix + bf_base64_length(nbytes);
	char	   *text;

	if (length >= MaxAllocSize)
		ereport(ERROR,
				errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				errmsg("bloom_agg_state is too large for text output"),
				errdetail("Its text form would take " UINT64_FORMAT " bytes.", length),
				errhint("Use binary COPY or bloom_agg_state_send() to move larger states."));
	text = bloom_palloc_large(length + 1);
	memcpy(text, BLOOM_AGG_STATE_TEXT_PREFIX, prefix);
	bf_base64_encode((const uint8 *) VARDATA_ANY(flat), nbytes, text + prefix);
	text[length] = '\0';
	PG_RETURN_CSTRING(text);
}

PG_FUNCTION_INFO_V1(bloom_agg_state_recv);
Datum
bloom_agg_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	const char *problem = NULL;
	struct varlena *value = bloom_agg_state_value((const uint8 *) buf->data + buf->cursor,
												  buf->len - buf->cursor, &problem);

	if (value == NULL)
		bloom_raise_invalid_binary("bloom_agg_state", problem);
	buf->cursor = buf->len;
	PG_RETURN_POINTER(value);
}

PG_FUNCTION_INFO_V1(bloom_agg_state_send);
Datum
bloom_agg_state_send(PG_FUNCTION_ARGS)
{
	struct varlena *flat = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(flat), (int) VARSIZE_ANY_EXHDR(flat));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- states that are values (1.3) ---- */

/*
 * The bloom_hashed forms of these aggregates (1.3), which Citus can split,
 * have a bloom_agg_state for transition state: in an aggregate,
 * an expanded object (agg/agg.h) holding a BloomAutoState, added to in
 * place; elsewhere its flat form.  The flat form is built when asked for
 * its size and kept until it is copied out, or the state changes.
 */
static Size
bloom_autoagg_object_flat_size(BloomAggObject *object)
{
	if (object->flat == NULL)
	{
		MemoryContext old_context = MemoryContextSwitchTo(object->header.eoh_context);

		object->flat = bloom_autoagg_flatten((BloomAutoState *) object->state);
		MemoryContextSwitchTo(old_context);
	}
	return VARSIZE(object->flat);
}

static void
bloom_autoagg_object_flatten(BloomAggObject *object, void *result, Size allocated_size)
{
	/* built by bloom_autoagg_object_flat_size, which PostgreSQL calls first */
	if (object->flat == NULL)
		(void) bloom_autoagg_object_flat_size(object);
	if (allocated_size != VARSIZE(object->flat))
		elog(ERROR, "bloom_agg_state: flattening into %zu bytes, not %zu", allocated_size,
			 (Size) VARSIZE(object->flat));
	memcpy(result, object->flat, allocated_size);
	pfree(object->flat);
	object->flat = NULL;
}

/* A bloom_agg_state is no filter: no view. */
static const BloomAggObjectKind bloom_autoagg_object_kind = {
	bloom_autoagg_object_flat_size,
	bloom_autoagg_object_flatten,
	NULL
};

/*
 * The state of the bloom_agg_state in argument argno, read in place: only
 * bloom_autoagg_merge reads a sparse sketch.
 */
static BloomAutoState *
bloom_autoagg_state_arg(FunctionCallInfo fcinfo, int argno)
{
	BloomAggObject *object = bloom_agg_object_of(PG_GETARG_DATUM(argno),
												 &bloom_autoagg_object_kind);

	if (object != NULL)
		return (BloomAutoState *) object->state;
	return bloom_autoagg_read_passed(PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(argno)));
}

/* The same for a final function: a sparse sketch is expanded, in CurrentMemoryContext. */
static BloomAutoState *
bloom_autoagg_final_arg(FunctionCallInfo fcinfo)
{
	BloomAutoState *state;
	BloomAutoState *copy;

	if (PG_ARGISNULL(0))
		return NULL;
	state = bloom_autoagg_state_arg(fcinfo, 0);
	if (state->sparse_sketch == NULL)
		return state;
	copy = bloom_autoagg_state_new(state->request.false_positive_rate);
	bloom_autoagg_merge(copy, state, CurrentMemoryContext);
	copy->flags = state->flags;
	return copy;
}

/*
 * The state in argument 0 to add to: itself when this call may modify it,
 * else a new state (a copy, or empty at rate p when argument 0 is NULL).
 */
static BloomAggObject *
bloom_autoagg_object_arg(FunctionCallInfo fcinfo, double p, bool *in_aggregate)
{
	BloomAggObject *object = bloom_agg_modifiable_object(fcinfo, &bloom_autoagg_object_kind);
	BloomAutoState *state;
	MemoryContext context;
	MemoryContext old_context;

	if (object != NULL)
	{
		*in_aggregate = true;
		return object;
	}
	context = bloom_agg_object_context(fcinfo, in_aggregate);
	object = bloom_agg_object_new(context, &bloom_autoagg_object_kind);
	old_context = MemoryContextSwitchTo(context);
	if (PG_ARGISNULL(0))
		state = bloom_autoagg_state_new(p);
	else
	{
		BloomAutoState *from = bloom_autoagg_state_arg(fcinfo, 0);

		state = bloom_autoagg_state_new(from->request.false_positive_rate);
		bloom_autoagg_merge(state, from, context);
		state->flags = from->flags;
	}
	object->state = state;
	MemoryContextSwitchTo(old_context);
	return object;
}

/*
 * bloom_agg(bloom_hashed) and bloom_agg(bloom_hashed, false_positive_rate):
 * the state is created from the first row even when its value is NULL, so
 * a bad rate is an error whatever the values.
 */
PG_FUNCTION_INFO_V1(bloom_autoagg_state_transfn);
Datum
bloom_autoagg_state_transfn(PG_FUNCTION_ARGS)
{
	double		p = bloom_autoagg_rate_arg(fcinfo, 2);
	bool		in_aggregate;
	BloomAggObject *object = bloom_autoagg_object_arg(fcinfo, p, &in_aggregate);
	BloomAutoState *state = (BloomAutoState *) object->state;

	bloom_autoagg_check_rate(state, p);
	if (!PG_ARGISNULL(1))
		bloom_autoagg_add(state,
						  bloom_hashed_hash((const BloomHashed *) PG_GETARG_POINTER(1),
											&state->flags, "bloom_agg"),
						  object->header.eoh_context);
	return bloom_agg_object_result(object, in_aggregate);
}

/* Fold the partial state in argument 1 into the one in argument 0; NULL is the identity. */
PG_FUNCTION_INFO_V1(bloom_autoagg_state_combinefn);
Datum
bloom_autoagg_state_combinefn(PG_FUNCTION_ARGS)
{
	BloomAutoState *from;
	BloomAggObject *object;
	BloomAutoState *state;
	bool		in_aggregate;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	from = bloom_autoagg_state_arg(fcinfo, 1);
	object = bloom_autoagg_object_arg(fcinfo, from->request.false_positive_rate, &in_aggregate);
	state = (BloomAutoState *) object->state;
	bloom_autoagg_merge(state, from, object->header.eoh_context);
	/* partial states may come from other servers (Citus): they must read text alike */
	state->flags = bloom_combine_flags("bloom_agg", state->flags, from->flags);
	return bloom_agg_object_result(object, in_aggregate);
}

PG_FUNCTION_INFO_V1(bloom_autoagg_state_default_finalfn);
Datum
bloom_autoagg_state_default_finalfn(PG_FUNCTION_ARGS)
{
	return bloom_autoagg_final(fcinfo, bloom_autoagg_final_arg(fcinfo), true);
}

PG_FUNCTION_INFO_V1(bloom_autoagg_state_finalfn);
Datum
bloom_autoagg_state_finalfn(PG_FUNCTION_ARGS)
{
	return bloom_autoagg_final(fcinfo, bloom_autoagg_final_arg(fcinfo), false);
}

/* ---- for scalable_bloom_agg (agg/scalable_bloom_agg.c) ---- */

void *
bloom_autoagg_final_state(FunctionCallInfo fcinfo, bool value_state, double *p)
{
	BloomAutoState *state;

	if (value_state)
		state = bloom_autoagg_final_arg(fcinfo);
	else
	{
		bloom_agg_context(fcinfo, "scalable_bloom_agg");
		state = PG_ARGISNULL(0) ? NULL : (BloomAutoState *) PG_GETARG_POINTER(0);
	}
	if (state != NULL)
		*p = state->request.false_positive_rate;
	return state;
}

BloomFilter *
bloom_autoagg_filter(void *state_pointer, double p, uint64 *distinct)
{
	BloomAutoState *state = (BloomAutoState *) state_pointer;
	BloomFilter *filter = bloom_autoagg_result(state, p);

	if (!bloom_autoagg_in_sketch(state))
		*distinct = state->set.count;
	else
	{
		double		estimate = bf_estimate_cardinality(filter->m, filter->k, filter->hash_scheme,
													   bf_popcount(filter->bits,
																   bloom_payload_bytes(filter->m)));

		*distinct = (uint64) ceil(estimate);
	}
	return filter;
}
