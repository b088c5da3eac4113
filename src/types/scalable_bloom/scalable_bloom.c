/*
 * types/scalable_bloom/scalable_bloom.c: the scalable_bloom type, a filter that grows in stages
 * and keeps its false-positive rate however many values arrive: type I/O,
 * the constructor, the element operations, union, estimates, the cast to
 * bloom, equality and hashing.  The stages, the stored form and its
 * validation are the core's (core/scalable.h, core/scalable.c).
 *
 * A value is hashed once, as bloom_add hashes it (encoding/encoding.c, with
 * the filter's flags), and every stage maps that hash: stage 0 of
 * scalable_bloom_empty(p, n0) is bloom_empty(p (1 - r), n0).
 */
#include "postgres.h"

#include "types/types.h"
#include "types/scalable_bloom/scalable_bloom.h"

#include "access/detoast.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

/* ---- reading values ---- */

bf_status
scalable_view_datum_status(Datum datum, ScalableArg *arg)
{
	struct varlena *value = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(datum));

	arg->body = (const uint8 *) VARDATA_ANY(value);
	arg->view = &arg->own;
	return bf_scalable_parse(arg->body, VARSIZE_ANY_EXHDR(value), false, &arg->own);
}

void
scalable_view_datum(Datum datum, ScalableArg *arg)
{
	bloom_raise_invalid_value("scalable_bloom", scalable_view_datum_status(datum, arg));
}

/*
 * Whether argument argno is the stored filter its call site's cache holds
 * detoasted (a per-row path: fn_extra read directly); if so, its view.
 */
static inline bool
scalable_getarg_cached(FunctionCallInfo fcinfo, int argno, ScalableArg *arg)
{
	struct varlena *value = (struct varlena *) PG_GETARG_POINTER(argno);
	BloomCallCache *cache = (BloomCallCache *) fcinfo->flinfo->fn_extra;
	BloomArgCache *entry;

	if (cache == NULL || !VARATT_IS_EXTERNAL_ONDISK(value) || argno >= lengthof(cache->args))
		return false;
	entry = &cache->args[argno];
	if (!entry->valid ||
		memcmp(entry->toast_pointer, VARDATA_EXTERNAL(value), sizeof(entry->toast_pointer)) != 0)
		return false;
	arg->body = (const uint8 *) VARDATA(entry->value);
	arg->view = entry->scalable;
	return true;
}

/*
 * The filter in argument argno; a stored (TOASTed) one is detoasted and
 * parsed once and kept for the life of the call site, in the call site's
 * cache as bloom's are (types/cache.c), so that a filter from a table or an
 * InitPlan is not fetched again on every row.
 */
void
scalable_getarg(FunctionCallInfo fcinfo, int argno, ScalableArg *arg)
{
	struct varlena *value = (struct varlena *) PG_GETARG_POINTER(argno);
	BloomArgCache *entry;
	MemoryContext old_context;
	struct varlena *copy;
	bf_scalable_view *view;

	if (likely(scalable_getarg_cached(fcinfo, argno, arg)))
		return;
	if (!VARATT_IS_EXTERNAL_ONDISK(value) || argno >= lengthof(((BloomCallCache *) NULL)->args))
	{
		scalable_view_datum(PointerGetDatum(value), arg);
		return;
	}
	entry = &bloom_call_cache(fcinfo)->args[argno];
	bloom_cache_release(entry);
	entry->valid = false;
	entry->sliced = false;
	old_context = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	copy = detoast_attr(value);
	view = (bf_scalable_view *) palloc(sizeof(bf_scalable_view));
	MemoryContextSwitchTo(old_context);
	entry->allocation = copy;
	entry->value = copy;
	entry->scalable = view;
	bloom_raise_invalid_value("scalable_bloom",
							  bf_scalable_parse((const uint8 *) VARDATA(copy),
												VARSIZE(copy) - VARHDRSZ, false, view));
	memcpy(entry->toast_pointer, VARDATA_EXTERNAL(value), sizeof(entry->toast_pointer));
	entry->valid = true;
	arg->body = (const uint8 *) VARDATA(entry->value);
	arg->view = entry->scalable;
}

/* ---- building values ---- */

/* A new value of body_length bytes after its 4-byte header, in CurrentMemoryContext. */
static ScalableFilter *
scalable_alloc(uint64 body_length)
{
	ScalableFilter *filter = (ScalableFilter *) bloom_palloc_large(VARHDRSZ + body_length);

	SET_VARSIZE(filter, VARHDRSZ + body_length);
	return filter;
}

/* The ERROR for a stage that cannot be opened (or a filter that cannot be made). */
static void
scalable_raise_stage_error(bf_status status, const char *operation,
						   const bf_scalable_params *params, uint32 stage)
{
	switch (status)
	{
		case BF_OK:
			return;
		case BF_TOO_LARGE:
		case BF_STAGES:
			ereport(ERROR,
					errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					errmsg("%s: scalable bloom filter would exceed the maximum size", operation),
					errdetail("Stage %u, for " UINT64_FORMAT " more values, would take the filter past PostgreSQL's 1 GB value limit or past %d stages.",
							  stage, bf_scalable_stage_capacity(params, stage),
							  BF_SCALABLE_STAGES_MAX),
					errhint("Use a larger initial_capacity or a growth of 4, or split the set."));
			break;
		default:
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("%s: invalid scalable bloom filter parameters", operation),
					errdetail("%s", bf_status_message(status)));
	}
}

/* Open the next stage of filter (reallocated), whose view is current. */
static ScalableFilter *
scalable_open_stage(ScalableFilter *filter, bf_scalable_view *view, const char *operation)
{
	uint64		m,
				new_length;
	uint32		k;
	uint8		scheme;
	bf_status	status;

	status = bf_scalable_stage_plan(&view->params, view->stages, view->length, &m, &k, &scheme,
									&new_length);
	scalable_raise_stage_error(status, operation, &view->params, view->stages);
	filter = (ScalableFilter *) repalloc_huge(filter, VARHDRSZ + new_length);
	SET_VARSIZE(filter, VARHDRSZ + new_length);
	bf_scalable_append_stage(filter->body, view, m, k, scheme);
	return filter;
}

ScalableFilter *
scalable_new(const char *operation, const bf_scalable_params *params)
{
	bf_status	status = bf_scalable_check_params(params);
	ScalableFilter *filter;
	bf_scalable_view view;

	if (status == BF_K_RANGE || status == BF_FALSE_POSITIVE_RATE_RANGE ||
		status == BF_CAPACITY_RANGE)
		bloom_raise_shape_error(status, operation, 0, 65, params->p, (int64) params->n0);
	scalable_raise_stage_error(status, operation, params, 0);
	filter = scalable_alloc(BF_SCALABLE_HEADER_BYTES);
	bf_scalable_start(filter->body, params, &view);
	return scalable_open_stage(filter, &view, operation);
}

ScalableFilter *
scalable_copy(const ScalableArg *arg, bf_scalable_view *view)
{
	ScalableFilter *filter = scalable_alloc(arg->view->length);

	bloom_fill_bits(filter->body, arg->body, arg->view->length);
	*view = *arg->view;
	return filter;
}

ScalableFilter *
scalable_add_hash(ScalableFilter *filter, bf_scalable_view *view, bf_hash hash,
				  const char *operation)
{
	if (bf_scalable_add(filter->body, view, hash) == BF_SCALABLE_FULL)
	{
		filter = scalable_open_stage(filter, view, operation);
		(void) bf_scalable_add(filter->body, view, hash);
	}
	return filter;
}

/* ---- type I/O ---- */

PG_FUNCTION_INFO_V1(scalable_bloom_in);
Datum
scalable_bloom_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	size_t		len = strlen(text);
	size_t		body_len = 0;
	ScalableFilter *filter = NULL;
	bf_scalable_view view;
	bf_status	status;

	/* measured first: the value is no larger than the text says */
	status = bf_scalable_text_decode(text, len, NULL, &body_len);
	if (status == BF_OK)
	{
		filter = scalable_alloc(body_len);
		status = bf_scalable_text_decode(text, len, filter->body, &body_len);
	}
	if (status == BF_OK)
		status = bf_scalable_parse(filter->body, body_len, true, &view);
	if (!bloom_input_status(fcinfo->context, "scalable_bloom", status))
		return (Datum) 0;
	PG_RETURN_POINTER(filter);
}

PG_FUNCTION_INFO_V1(scalable_bloom_out);
Datum
scalable_bloom_out(PG_FUNCTION_ARGS)
{
	ScalableArg arg;
	uint64		length;
	char	   *text;

	scalable_getarg(fcinfo, 0, &arg);
	length = bf_scalable_text_length(arg.body, arg.view);
	if (length >= MaxAllocSize)
		ereport(ERROR,
				errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				errmsg("scalable bloom filter is too large for text output"),
				errdetail("Its text form would take " UINT64_FORMAT " bytes.", length),
				errhint("Use binary COPY or scalable_bloom_send() to move larger filters."));
	text = bloom_palloc_large(length + 1);
	bf_scalable_text_encode(arg.body, arg.view, text);
	PG_RETURN_CSTRING(text);
}

/* The binary form is the stored body, versioned by its first byte. */
PG_FUNCTION_INFO_V1(scalable_bloom_recv);
Datum
scalable_bloom_recv(PG_FUNCTION_ARGS)
{
	size_t		len;
	const uint8 *data = bloom_recv_take((StringInfo) PG_GETARG_POINTER(0), "scalable_bloom",
										BF_TOO_LARGE, &len);
	bf_scalable_view view;
	bf_status	status;
	ScalableFilter *filter;

	status = bf_scalable_parse(data, len, true, &view);
	if (status != BF_OK)
		bloom_raise_invalid_binary("scalable_bloom", bf_status_message(status));
	filter = scalable_alloc(len);
	bloom_fill_bits(filter->body, data, len);
	PG_RETURN_POINTER(filter);
}

PG_FUNCTION_INFO_V1(scalable_bloom_send);
Datum
scalable_bloom_send(PG_FUNCTION_ARGS)
{
	ScalableArg arg;
	StringInfoData buf;

	scalable_getarg(fcinfo, 0, &arg);
	pq_begintypsend(&buf);
	enlargeStringInfo(&buf, arg.view->length);
	pq_sendbytes(&buf, (const char *) arg.body, (int) arg.view->length);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---- the constructor ---- */

/*
 * scalable_bloom_empty(p, n0 [, growth [, tightening]]): the defaults are
 * here, in the core's constants, not in the SQL declarations.
 */
PG_FUNCTION_INFO_V1(scalable_bloom_empty);
Datum
scalable_bloom_empty(PG_FUNCTION_ARGS)
{
	bf_scalable_params params;
	int64		n0 = PG_GETARG_INT64(1);
	int32		growth = PG_NARGS() > 2 ? PG_GETARG_INT32(2) : BF_SCALABLE_DEFAULT_GROWTH;

	params.p = PG_GETARG_FLOAT8(0);
	params.r = PG_NARGS() > 3 ? PG_GETARG_FLOAT8(3) : BF_SCALABLE_DEFAULT_TIGHTENING;
	params.flags = bloom_new_filter_flags();
	params.options = 0;
	if (n0 < 1)
		bloom_raise_shape_error(BF_CAPACITY_RANGE, "scalable_bloom_empty", 0, 0, params.p, n0);
	params.n0 = (uint64) n0;
	if (growth != 2 && growth != 4)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("scalable_bloom_empty: growth must be 2 or 4"),
				errdetail("growth is %d.", growth));
	params.growth = (uint8) growth;
	if (!(params.r > 0.0 && params.r < 1.0))
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("scalable_bloom_empty: tightening must be greater than 0 and less than 1"),
				errdetail("tightening is %g.", params.r));
	PG_RETURN_POINTER(scalable_new("scalable_bloom_empty", &params));
}

/* ---- element operations ---- */

PG_FUNCTION_INFO_V1(scalable_bloom_add);
Datum
scalable_bloom_add(PG_FUNCTION_ARGS)
{
	ScalableArg arg;
	bf_scalable_view view;
	ScalableFilter *filter;
	bf_hash		hash;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	/* A NULL value leaves the filter as it is: the very same datum. */
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	scalable_getarg(fcinfo, 0, &arg);
	filter = scalable_copy(&arg, &view);
	hash = bloom_encoder_hash(bloom_call_encoder(fcinfo, 1), PG_GETARG_DATUM(1),
							  view.params.flags, &view.params.flags);
	filter->body[1] = view.params.flags;
	PG_RETURN_POINTER(scalable_add_hash(filter, &view, hash, "bloom_add"));
}

/* The fold of bloom_add_all (bloom_array_fold): one copy, growing stages as it fills. */
typedef struct ScalableAddAll
{
	ScalableFilter *filter;
	bf_scalable_view view;
} ScalableAddAll;

static BloomEncoder *
scalable_add_all_first(FunctionCallInfo fcinfo, Oid element_type, void *state, uint8 **flags)
{
	ScalableAddAll *add = (ScalableAddAll *) state;
	ScalableArg arg;

	scalable_getarg(fcinfo, 0, &arg);
	add->filter = scalable_copy(&arg, &add->view);
	*flags = &add->view.params.flags;
	return bloom_call_encoder_of_type(fcinfo, 1, element_type);
}

static void
scalable_add_all_each(void *state, bf_hash hash)
{
	ScalableAddAll *add = (ScalableAddAll *) state;

	add->filter = scalable_add_hash(add->filter, &add->view, hash, "bloom_add_all");
}

static void *
scalable_add_all_finish(void *state)
{
	ScalableAddAll *add = (ScalableAddAll *) state;

	/* the flags the values' types extended, stored as bloom_add stores them */
	add->filter->body[1] = add->view.params.flags;
	return add->filter;
}

/*
 * bloom_add of every element of an array in turn, into one copy: the same
 * value as a chain of bloom_add.  NULL elements are skipped; a NULL array,
 * or one with only NULLs, returns the very same datum.
 */
PG_FUNCTION_INFO_V1(scalable_bloom_add_all);
Datum
scalable_bloom_add_all(PG_FUNCTION_ARGS)
{
	static const BloomArrayFold fold = {
		scalable_add_all_first, scalable_add_all_each, scalable_add_all_finish, true
	};
	ScalableAddAll state;

	return bloom_array_fold(fcinfo, &fold, &state);
}

/*
 * A membership test: a stored filter is read by TOAST slices while its
 * call site's scans of it stay within budget (types/slice.c), then whole.
 */
static bool
scalable_test_arguments(FunctionCallInfo fcinfo, int filter_argno, int value_argno)
{
	ScalableArg arg;
	BloomArgCache *sliced = NULL;
	bf_hash		hash;

	if (unlikely(!scalable_getarg_cached(fcinfo, filter_argno, &arg)))
	{
		sliced = bloom_cache_lookup_scalable(fcinfo, filter_argno);
		if (sliced != NULL)
			arg.view = sliced->scalable;
		else
			scalable_getarg(fcinfo, filter_argno, &arg);
	}
	hash = bloom_encoder_hash(bloom_call_encoder(fcinfo, value_argno), PG_GETARG_DATUM(value_argno),
							  arg.view->params.flags, NULL);
	if (sliced != NULL)
		return bloom_slice_scalable_contains((struct varlena *) PG_GETARG_POINTER(filter_argno),
											 arg.view, hash, &sliced->slice_scans);
	return bf_scalable_contains(arg.body, arg.view, hash);
}

PG_FUNCTION_INFO_V1(scalable_bloom_contains);
Datum
scalable_bloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(scalable_test_arguments(fcinfo, 0, 1));
}

PG_FUNCTION_INFO_V1(scalable_bloom_contained_by);
Datum
scalable_bloom_contained_by(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(scalable_test_arguments(fcinfo, 1, 0));
}

/* ---- union ---- */

/*
 * The stage-wise union of a and b, which must have the same parameters and,
 * where both have a stage, its shape (core/scalable.c, "Union", says what
 * it promises).
 */
ScalableFilter *
scalable_union(const char *operation, const ScalableArg *a, const ScalableArg *b)
{
	const bf_scalable_params *pa = &a->view->params;
	const bf_scalable_params *pb = &b->view->params;
	const ScalableArg *longer = a->view->stages >= b->view->stages ? a : b;
	const ScalableArg *shorter = longer == a ? b : a;
	bf_scalable_view view;
	ScalableFilter *result;

	if (pa->p != pb->p || pa->r != pb->r || pa->n0 != pb->n0 || pa->growth != pb->growth ||
		pa->options != pb->options)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("%s requires scalable bloom filters of the same parameters", operation),
				errdetail("One filter has false_positive_rate %g, initial_capacity " UINT64_FORMAT ", growth %u, tightening %g%s; the other %g, " UINT64_FORMAT ", %u, %g%s.",
						  pa->p, pa->n0, pa->growth, pa->r,
						  pa->options ? " (made by scalable_bloom_agg)" : "",
						  pb->p, pb->n0, pb->growth, pb->r,
						  pb->options ? " (made by scalable_bloom_agg)" : ""));
	for (uint32 i = 0; i < shorter->view->stages; i++)
	{
		const bf_scalable_stage *sa = &a->view->stage[i];
		const bf_scalable_stage *sb = &b->view->stage[i];

		if (sa->m != sb->m || sa->k != sb->k || sa->scheme != sb->scheme)
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("%s requires scalable bloom filters of the same stage shapes", operation),
					errdetail("Stage %u has m = " UINT64_FORMAT ", k = %u in one filter and m = " UINT64_FORMAT ", k = %u in the other.",
							  i, sa->m, sa->k, sb->m, sb->k),
					errhint("Filters made by scalable_bloom_agg size their first stage for the values they hold; combine them in one aggregate instead."));
	}

	result = scalable_copy(longer, &view);
	view.params.flags = bloom_combine_flags(operation, pa->flags, pb->flags);
	result->body[1] = view.params.flags;
	for (uint32 i = 0; i < shorter->view->stages; i++)
	{
		const bf_scalable_stage *stage = &view.stage[i];
		uint64		count = stage->count + shorter->view->stage[i].count;

		CHECK_FOR_INTERRUPTS();
		bf_or_into(result->body + stage->offset + BF_SCALABLE_STAGE_HEADER_BYTES,
				   bf_scalable_bits(shorter->body, shorter->view, i),
				   bloom_payload_bytes(stage->m));
		/* a stage may now hold more than its capacity: its count stops there */
		bf_scalable_set_count(result->body, &view, i, Min(count, stage->capacity));
	}
	return result;
}

PG_FUNCTION_INFO_V1(scalable_bloom_or);
Datum
scalable_bloom_or(PG_FUNCTION_ARGS)
{
	ScalableArg a;
	ScalableArg b;

	scalable_getarg(fcinfo, 0, &a);
	scalable_getarg(fcinfo, 1, &b);
	PG_RETURN_POINTER(scalable_union("operator |", &a, &b));
}

/* ---- estimates ---- */

PG_FUNCTION_INFO_V1(scalable_bloom_cardinality);
Datum
scalable_bloom_cardinality(PG_FUNCTION_ARGS)
{
	ScalableArg arg;

	scalable_getarg(fcinfo, 0, &arg);
	PG_RETURN_FLOAT8(bf_scalable_cardinality(arg.body, arg.view));
}

PG_FUNCTION_INFO_V1(scalable_bloom_info);
Datum
scalable_bloom_info(PG_FUNCTION_ARGS)
{
	ScalableArg arg;
	Datum		values[10];
	bool		nulls[10] = {0};
	uint64		count = 0;

	scalable_getarg(fcinfo, 0, &arg);
	for (uint32 i = 0; i < arg.view->stages; i++)
		count += arg.view->stage[i].count;
	values[0] = Float8GetDatum(arg.view->params.p);
	values[1] = Int64GetDatum((int64) arg.view->params.n0);
	values[2] = Int32GetDatum(arg.view->params.growth);
	values[3] = Float8GetDatum(arg.view->params.r);
	values[4] = Int32GetDatum((int32) arg.view->stages);
	values[5] = Int32GetDatum((int32) (VARHDRSZ + arg.view->length));
	values[6] = Int64GetDatum((int64) count);
	values[7] = Float8GetDatum(bf_scalable_cardinality(arg.body, arg.view));
	values[8] = Float8GetDatum(bf_scalable_current_rate(arg.body, arg.view));
	values[9] = BoolGetDatum((arg.view->params.options & BF_SCALABLE_SELF_SIZED) != 0);
	PG_RETURN_DATUM(bloom_result_row(fcinfo, "scalable_bloom_info", values, nulls));
}

/* One row per stage: its capacity, count, shape, target rate and rate from its bits. */
PG_FUNCTION_INFO_V1(scalable_bloom_stages);
Datum
scalable_bloom_stages(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ScalableArg arg;

	InitMaterializedSRF(fcinfo, 0);
	scalable_getarg(fcinfo, 0, &arg);
	for (uint32 i = 0; i < arg.view->stages; i++)
	{
		const bf_scalable_stage *stage = &arg.view->stage[i];
		const uint8 *bits = bf_scalable_bits(arg.body, arg.view, i);
		uint64		set = bf_popcount(bits, bloom_payload_bytes(stage->m));
		Datum		values[9];
		bool		nulls[9] = {0};

		values[0] = Int32GetDatum((int32) i);
		values[1] = Int64GetDatum((int64) stage->capacity);
		values[2] = Int64GetDatum((int64) stage->count);
		values[3] = Int64GetDatum((int64) stage->m);
		values[4] = Int32GetDatum((int32) stage->k);
		values[5] = Int32GetDatum((int32) stage->scheme);
		values[6] = Float8GetDatum(bf_scalable_stage_rate(&arg.view->params, i));
		values[7] = Int64GetDatum((int64) set);
		values[8] = Float8GetDatum(bf_filter_false_positive_rate(bits, stage->m, stage->k,
																 stage->scheme, set));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* ---- the cast to bloom ---- */

/*
 * A filter of one stage is the plain filter of its values (stage 0 is
 * shaped and hashed as bloom's); one of more stages has no single-filter
 * form: 22023, as for filters of different shapes.
 */
PG_FUNCTION_INFO_V1(scalable_bloom_to_bloom);
Datum
scalable_bloom_to_bloom(PG_FUNCTION_ARGS)
{
	ScalableArg arg;
	BloomHeader header;
	BloomFilter *filter;
	const bf_scalable_stage *stage;

	scalable_getarg(fcinfo, 0, &arg);
	if (arg.view->stages != 1)
		ereport(ERROR,
				errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				errmsg("cannot cast a scalable bloom filter of %u stages to bloom", arg.view->stages),
				errdetail("Only a scalable filter of one stage is a plain filter; its stages have different shapes."),
				errhint("Test membership on the scalable filter, or build a bloom filter with bloom_agg over the values."));
	stage = &arg.view->stage[0];
	header.format_version = BLOOM_FORMAT_VERSION;
	header.hash_scheme = stage->scheme;
	header.k = (uint8) stage->k;
	header.flags = arg.view->params.flags;
	header.m = stage->m;
	filter = bloom_alloc_like(&header);
	bloom_fill_bits(filter->bits, bf_scalable_bits(arg.body, arg.view, 0),
					bloom_payload_bytes(stage->m));
	PG_RETURN_POINTER(filter);
}

/* ---- equality and hashing ---- */

/* Validation makes the stored form canonical: equal filters are equal bytes. */
static bool
scalable_args_equal(FunctionCallInfo fcinfo)
{
	ScalableArg a;
	ScalableArg b;

	scalable_getarg(fcinfo, 0, &a);
	scalable_getarg(fcinfo, 1, &b);
	return a.view->length == b.view->length && memcmp(a.body, b.body, a.view->length) == 0;
}

PG_FUNCTION_INFO_V1(scalable_bloom_eq);
Datum
scalable_bloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(scalable_args_equal(fcinfo));
}

PG_FUNCTION_INFO_V1(scalable_bloom_ne);
Datum
scalable_bloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!scalable_args_equal(fcinfo));
}

/* XXH3-64 of the stored bytes, the same on every machine. */
static uint64
scalable_hash_body(const ScalableArg *arg, uint64 seed)
{
	return bloom_hash_payload(NULL, 0, arg->body, arg->view->length, seed);
}

PG_FUNCTION_INFO_V1(scalable_bloom_hash);
Datum
scalable_bloom_hash(PG_FUNCTION_ARGS)
{
	ScalableArg arg;

	scalable_getarg(fcinfo, 0, &arg);
	PG_RETURN_INT32((int32) (uint32) scalable_hash_body(&arg, 0));
}

PG_FUNCTION_INFO_V1(scalable_bloom_hash_extended);
Datum
scalable_bloom_hash_extended(PG_FUNCTION_ARGS)
{
	ScalableArg arg;

	scalable_getarg(fcinfo, 0, &arg);
	PG_RETURN_INT64((int64) scalable_hash_body(&arg, (uint64) PG_GETARG_INT64(1)));
}
