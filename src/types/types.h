/*
 * types/types.h: what the SQL-callable files share.
 *
 * Data flows one way: an SQL argument becomes a BloomView (read in place, or
 * detoasted once and cached per call site), a value becomes its canonical
 * bytes and then a bf_hash (BloomEncoder, encoding/encoding.h), and the core
 * does the rest.
 */
#ifndef BLOOM_PG_H
#define BLOOM_PG_H

#include "compat.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/primnodes.h"
#include "port/pg_bswap.h"
#include "utils/expandeddatum.h"

#include "core/format.h"
#include "encoding/encoding.h"
#include "core/core.h"

/* A filter as the SQL layer reads it: its header and where its bits are. */
typedef struct BloomView
{
	BloomHeader header;
	const uint8_t *bits;		/* bloom_payload_bytes(header.m) bytes */
	size_t		nbytes;
} BloomView;

/*
 * View of a filter datum in any varlena form (short, compressed, external on
 * disk or indirect): the one way a filter value is opened.  A value that is
 * not inline and uncompressed is expanded in CurrentMemoryContext.  ERROR
 * XX001 for a damaged value.
 */
extern void bloom_view_datum(Datum datum, BloomView *view);

/*
 * The same without the ERROR, for ANALYZE, which skips a damaged value: the
 * view is valid only when BF_OK is returned.  The expanded copy, if any, is
 * in CurrentMemoryContext either way.
 */
extern bf_status bloom_view_datum_status(Datum datum, BloomView *view);

/*
 * The same checks on a filter's bytes in memory (its 12-byte header and bit
 * array, without a varlena header), read in place.
 */
extern void bloom_view_bytes(const uint8 *body, size_t length, BloomView *view);

/*
 * The checks of the bytes of a value of a type whose stored form is bloom's
 * header and then an array, read in place into view: long enough for the
 * header, then check_header, then check_array (the array's length and its
 * padding), with length_error for a value shorter than a header.  bloom's
 * and counting_bloom's readers pass their own functions, constants, so that
 * the checks of a value read on every row stay direct calls.
 */
static inline bf_status
bloom_view_bytes_checked(const uint8_t *body, size_t length, BloomView *view,
						 bf_status length_error,
						 bf_status (*check_header) (const BloomHeader *header),
						 bf_status (*check_array) (const BloomHeader *header,
												   const uint8_t *array, size_t nbytes))
{
	bf_status	status;

	if (length < BLOOM_HEADER_BYTES)
		return length_error;
	bloom_header_read(body, &view->header);
	view->bits = body + BLOOM_HEADER_BYTES;
	view->nbytes = length - BLOOM_HEADER_BYTES;
	status = check_header(&view->header);
	if (status == BF_OK)
		status = check_array(&view->header, view->bits, view->nbytes);
	return status;
}

/*
 * Statistics of a bloom column (planner/analyze.c): ANALYZE keeps, in a
 * pg_statistic slot of kind BLOOM_STATISTIC_KIND, stanumbers describing the
 * sampled non-NULL filters, indexed as below.  PostgreSQL reserves no range
 * of kinds for extensions in general; pg_statistic.h says private use may
 * pick one at random in 10000-30000, which this is.  The slot has no values.
 */
#define BLOOM_STATISTIC_KIND 17707
#define BLOOM_STATISTIC_MEAN_CARDINALITY 0	/* mean Swamidass-Baldi n* */
#define BLOOM_STATISTIC_MEDIAN_CARDINALITY 1	/* median n* */
#define BLOOM_STATISTIC_MEAN_FPR 2	/* mean current false-positive rate */
#define BLOOM_STATISTIC_MEAN_FILL 3	/* mean fill ratio X/m */
#define BLOOM_STATISTIC_MEAN_K 4	/* mean k */
#define BLOOM_STATISTIC_FILTERS 5	/* how many filters were read */
#define BLOOM_STATISTIC_NUMBERS 6

/* View of a filter this code built. */
extern void bloom_view_filter(const BloomFilter *filter, BloomView *view);

/* palloc, with huge pages for a large block where the OS has them. */
extern void *bloom_palloc_large(Size size);

/*
 * The row values/nulls as the calling function's composite result (its
 * OUT parameters), for the info and sizing functions.
 */
extern Datum bloom_result_row(FunctionCallInfo fcinfo, const char *operation, Datum *values,
							  bool *nulls);

/* Allocations at least this large are worth huge pages (bloom_palloc_large). */
#define BLOOM_HUGE_PAGE_MIN_BYTES ((Size) 4 << 20)

/*
 * Zero (src NULL) or copy nbytes of a bit array a stride at a time, so that
 * a query cancel does not wait for the page faults of a large new array.
 */
extern void bloom_fill_bits(uint8 *dst, const uint8 *src, size_t nbytes);

/* A new filter of the given shape with no bits set, in CurrentMemoryContext. */
extern BloomFilter *bloom_alloc(uint64 m, uint32 k, uint8 hash_scheme);

/*
 * The same with the bit array aligned to a cache line, so that a scheme 2
 * block is one line: for aggregate states only, as the pointer may lie
 * inside its chunk and must never be passed to pfree.
 */
extern BloomFilter *bloom_alloc_state(uint64 m, uint32 k, uint8 hash_scheme);

/*
 * An empty filter sized for capacity n at false-positive rate p, in
 * CurrentMemoryContext, allocated as bloom_alloc_state does when for_state;
 * the shape errors name operation.
 */
extern BloomFilter *bloom_alloc_optimal(const char *operation, double p, int64 n,
										bool for_state);

/*
 * A new filter with the header's shape (m, k, hash scheme) and flags, its
 * bit array not initialized: the caller writes all of it.  In
 * CurrentMemoryContext.  The functions above give a new filter the flags
 * of this database (bloom_new_filter_flags).
 */
extern BloomFilter *bloom_alloc_like(const BloomHeader *header);

/* A new filter with the view's shape and bits, in CurrentMemoryContext. */
extern BloomFilter *bloom_copy(const BloomView *view);

/* The same, allocated as bloom_alloc_state does. */
extern BloomFilter *bloom_copy_state(const BloomView *view);

/*
 * An aggregate's state as a value (types/value.c): an expanded object
 * (utils/expandeddatum.h) of the state's SQL type, which the aggregates
 * (agg/agg.h) add rows to in place.  One expanded object serves every kind
 * of state: a BloomAggObject holds the kind's state, and the kind says how
 * large its flat form is and writes it, and, for a kind whose type is
 * bloom, gives a view of its filter, which bloom_view_datum reads in place
 * (view NULL for the other kinds).  A kind whose flat form must be built
 * (the self-sized state's) keeps it in flat between the two calls; a change
 * to the state drops it.
 *
 * bloom_agg_object_new: a new object of kind in context, its state not set
 * yet.  bloom_agg_object_result: the state to return, read-write in an
 * aggregate call (in_aggregate), else flattened into CurrentMemoryContext
 * and deleted.  bloom_agg_object_of: the object of kind that datum points
 * to (read-only or read-write), or NULL when it is some other form of
 * value.  bloom_agg_object_view: if datum, an expanded datum, is an object
 * of a kind that is a filter, a view of that filter; false otherwise.
 */
typedef struct BloomAggObject BloomAggObject;

typedef struct BloomAggObjectKind
{
	Size		(*flat_size) (BloomAggObject *object);
	void		(*flatten) (BloomAggObject *object, void *result, Size size);
	bool		(*view) (BloomAggObject *object, BloomView *view);
} BloomAggObjectKind;

struct BloomAggObject
{
	ExpandedObjectHeader header;
	const BloomAggObjectKind *kind;
	void	   *state;			/* the kind's, in header.eoh_context */
	struct varlena *flat;		/* the kind's flat form while it is wanted, or NULL */
};

extern BloomAggObject *bloom_agg_object_new(MemoryContext context, const BloomAggObjectKind *kind);
extern Datum bloom_agg_object_result(BloomAggObject *object, bool in_aggregate);
extern BloomAggObject *bloom_agg_object_of(Datum datum, const BloomAggObjectKind *kind);
extern bool bloom_agg_object_view(Datum datum, BloomView *view);

/*
 * The shape (m, k, hash scheme, flags) that shape text gives: the text form
 * of a filter up to its bits, as bloom_shape() writes it (types/bloom/construct.c).
 * ERROR 22P02, naming function, for anything else.
 */
extern void bloom_parse_shape(const char *function, const char *text, size_t length,
							  BloomHeader *shape);

/*
 * ERROR 22023 unless a and b have the same m, k and hash scheme; operation
 * names the SQL function or operator for the message.
 */
extern void bloom_require_same_shape(const char *operation,
									 const BloomView *a, const BloomView *b);

/* The same check for filters of any type: filters and hint complete the message. */
extern void bloom_require_same_shape_of(const char *operation, const char *filters,
										const char *hint, const BloomView *a,
										const BloomView *b);

/*
 * Raise the ERROR for a failed shape check from bf_check_shape() or
 * bf_optimal_shape(): 22023 for arguments out of range, 54000 for a filter
 * larger than PostgreSQL can store.  m, k, p and n are what was asked or
 * computed, for the message (p < 0 and n < 0 when not applicable).
 */
extern void bloom_raise_shape_error(bf_status status, const char *operation,
									uint64 m, int64 k, double p, int64 n);

/*
 * Set operations (types/bloom/setops.c), the one path for the functions, the
 * operators and the aggregates: fold input into result by bitwise OR
 * (union) or AND (intersection), in place, and return result; when result
 * is NULL, return a copy of input in CurrentMemoryContext.  ERROR 22023,
 * naming operation, unless the shapes match.
 */
typedef enum BloomSetOp
{
	BLOOM_SETOP_UNION,
	BLOOM_SETOP_INTERSECTION
} BloomSetOp;

extern BloomFilter *bloom_setop_fold(BloomSetOp op, const char *operation,
									 BloomFilter *result, const BloomView *input);

/*
 * A value hashed once, as bloom_add would hash it into a new filter of this
 * database: the type bloom_hashed, made by bloom_value(x) (types/bloom_hashed.c).
 * Its hash does not depend on the filter's shape or hash scheme, so one goes into any
 * filter that reads text as it was read (utf8_reading).  Aggregates over
 * bloom_value have no polymorphic argument, which Citus needs to split them.
 * Fixed length, stored as in memory; send and recv fix the byte order.
 */
typedef struct BloomHashed
{
	uint64		h1;
	uint64		h2;
	uint8		version;		/* BLOOM_HASHED_VERSION */
	uint8		flags;			/* the BLOOM_FLAG_* adding the value sets */
	uint8		utf8_reading;	/* 1: text was read as UTF-8; 0: as the database's bytes */
	uint8		reserved[5];	/* zero */
} BloomHashed;

#define BLOOM_HASHED_VERSION 1

/*
 * The hash of value v for a filter with flags filter_flags (the filter's
 * flags gain v's); ERROR 22023, naming function, when the filter reads text
 * otherwise than v was read.
 */
extern bf_hash bloom_hashed_hash(const BloomHashed *v, uint8 *filter_flags, const char *function);

/*
 * ERROR 22P03 for a value of type type_name whose binary form does not hold
 * together; problem is a sentence for the detail.
 */
pg_noreturn extern void bloom_raise_invalid_binary(const char *type_name, const char *problem);

/* ERROR XX001 for a damaged stored value of type type_name, unless status is BF_OK. */
extern void bloom_raise_invalid_value(const char *type_name, bf_status status);

/*
 * The text input helper every filter type's I/O shares (types/bloom/io.c):
 * true for BF_OK; else it reports invalid input syntax for type type_name,
 * with status for the detail, as an ERROR or, where the caller asked for
 * one (pg_input_is_valid), a soft error, and returns false.
 */
extern bool bloom_input_status(Node *escontext, const char *type_name, bf_status status);


/* The type's input function (types/bloom/io.c), by which the type is recognized. */
extern PGDLLEXPORT Datum bloom_in(PG_FUNCTION_ARGS);

/*
 * Per-call-site cache kept in flinfo->fn_extra (types/cache.c), for bloom
 * and counting_bloom filters (a call site's filter arguments are all of one
 * type, so its entries are never mixed).  A stored filter that the
 * membership tests read by slices (types/slice.c) has its checked header
 * here and no value until it is detoasted whole.
 */
typedef struct BloomArgCache
{
	bool		valid;			/* detoasted whole and checked */
	bool		sliced;			/* read by slices, its header checked */
	char		toast_pointer[16];	/* the varatt_external it was fetched by */
	struct varlena *value;		/* detoasted copy, in fn_mcxt; NULL while sliced */
	void	   *allocation;		/* the chunk value lies in (what to pfree) */
	BloomView	view;			/* bits NULL while sliced */
	uint32		slice_scans;	/* TOAST index scans its slices took so far */
	/* a counting filter's membership tests (types/counting_bloom/counting_bloom.h, counting_getarg_lookup) */
	bool		counting_bits;	/* view is the bloom filter of its counters */
	uint64		counting_lookups;	/* tests made on its counters so far */
	/*
	 * a scalable filter's stages (types/scalable_bloom/scalable_bloom.c, scalable_getarg), in
	 * fn_mcxt; while sliced, their shapes only (bloom_cache_lookup_scalable)
	 */
	struct bf_scalable_view *scalable;
} BloomArgCache;

/*
 * Filters a call site saw before its current ones, kept aside so that rows
 * alternating between a few stored filters (a join to a table of filters)
 * do not detoast one on every row: at most this many, of at most this many
 * bytes together.
 */
#define BLOOM_CACHE_SPARES 8
#define BLOOM_CACHE_SPARE_BYTES ((Size) 64 << 20)

typedef struct BloomCallCache
{
	BloomArgCache args[3];		/* filter arguments 0 to 2 (bloom_agg_like's template) */
	BloomArgCache spares[BLOOM_CACHE_SPARES];	/* earlier ones of either */
	Size		spare_bytes;
	int			next_victim;	/* round robin over spares */
	BloomEncoder *encoder;
	int			encoder_argno;
	Oid			encoder_typid;
} BloomCallCache;

extern BloomCallCache *bloom_call_cache(FunctionCallInfo fcinfo);

/* Free what an entry holds (its detoasted copy), leaving it empty. */
extern void bloom_cache_release(BloomArgCache *entry);

/*
 * What the cache and the slices (types/slice.c) need to know of a filter
 * type whose stored form is bloom's header and then an array of m
 * positions: a bit each (bloom), or a 4-bit counter each (counting_bloom,
 * core/counting.h), position i in byte i * position_bits / 8.  Its checks
 * are those of view_datum, the one way a value of the type is opened:
 * check_header, the array's length (payload_bytes, length_error when it
 * does not match) and type_name in the ERROR XX001 of a damaged value.
 * block_contains tests a scheme 2 block (BLOOM_BLOCK_BITS positions,
 * BF_BLOCK_BYTES * position_bits bytes).
 */
typedef struct BloomLayout
{
	const char *type_name;
	uint32_t	position_bits;	/* 1 or 4 */
	bf_status	length_error;
	bf_status	(*check_header) (const BloomHeader *header);
	uint64_t	(*payload_bytes) (uint64_t m);
	bool		(*block_contains) (const uint8_t *block, uint32_t k, uint64_t h2);
	void		(*view_datum) (Datum datum, BloomView *view);
	bool		flags_in_identity;	/* = and hash tell filters apart by flags too */

	/*
	 * The binary form (types/binary_io.c): sql_name names the type in its
	 * errors, too_large is the status of an input larger than a value can
	 * be, binary_decode checks a binary form and finds its array in it, and
	 * copy makes a new value of a checked view.
	 */
	const char *sql_name;
	bf_status	too_large;
	bf_status	(*binary_decode) (const uint8_t *data, size_t len, BloomHeader *header,
								  const uint8_t **array);
	struct varlena *(*copy) (const BloomView *view);
} BloomLayout;

/* The most bits a position of a BloomLayout takes: a counter's. */
#define BLOOM_LAYOUT_POSITION_BITS_MAX 4

/* bloom's layout (types/cache.c). */
extern const BloomLayout bloom_layout;

/*
 * The sparse forms a value travels in between Citus's workers and its
 * coordinator (types/sparse.c), for the types whose stored form is a
 * header and an array (bloom, counting_bloom).  bloom_sparse_form: the
 * sparse binary form of view (a bytea), under an aggregate when that is
 * shorter, else NULL.  bloom_out_sparse: the text output prefix + base64 of the sparse form
 * under an aggregate when shorter than text_length, else NULL.
 * bloom_expand_sparse: a binary input (*data, *len) that is sparse,
 * replaced by its expanded binary form (left as it is otherwise), or the
 * reason it is malformed.  bloom_is_sparse_text and
 * bloom_decode_sparse_text: a text input after prefix, decoded and
 * expanded into the binary form.
 */
extern bytea *bloom_sparse_form(FunctionCallInfo fcinfo, const BloomView *view);
extern char *bloom_out_sparse(FunctionCallInfo fcinfo, const char *prefix,
							  const BloomView *view, uint64 text_length);
extern bf_status bloom_expand_sparse(const BloomLayout *layout, const uint8 **data, size_t *len);

/*
 * The binary input and output of a type of a BloomLayout
 * (types/binary_io.c).  bloom_layout_decode_binary: a new value from a
 * binary form (expanded first if sparse), or why it is malformed; the
 * receive function and a sparse text input read through it.
 * bloom_layout_recv and bloom_layout_send: the type's receive and send
 * functions.  bloom_recv_take: the bytes of a binary input not read yet,
 * all taken (the cursor moves to the end); ERROR 22P03 with too_large for
 * the detail when they are more than a value can hold, before anything is
 * allocated for them (scalable_bloom's receive function takes them so
 * too).  bloom_send_view: the binary form of a filter (or counting filter)
 * of the view: its binary header, then its bits.
 */
extern bf_status bloom_layout_decode_binary(const BloomLayout *layout, const uint8 *data,
											size_t len, struct varlena **result);
extern Datum bloom_layout_recv(FunctionCallInfo fcinfo, const BloomLayout *layout);
extern Datum bloom_layout_send(FunctionCallInfo fcinfo, const BloomLayout *layout);
extern const uint8 *bloom_recv_take(StringInfo buf, const char *type_name, bf_status too_large,
									size_t *length);
extern bytea *bloom_send_view(const BloomView *view);
extern bool bloom_is_sparse_text(const char *prefix, const char *text);
extern bf_status bloom_decode_sparse_text(const BloomLayout *layout, const char *prefix,
										  const char *text, const uint8 **plain,
										  size_t *plain_len);

/*
 * The filter of the layout's type in argument argno, as bloom_getarg and
 * counting_getarg give it: an inline value read by layout->view_datum; a
 * stored one detoasted whole and checked once per call site, kept in the
 * entry of the cache this returns (NULL for an inline value).
 * bloom_cache_lookup: the same for a membership test, except that a stored
 * uncompressed filter the call site has not tested often enough to pay for
 * detoasting is read by slices: the entry is then not valid, view->bits is
 * NULL, the header is checked, and bloom_lookup_slices tests a value
 * (types/slice.c explains when the call site switches).
 */
extern BloomArgCache *bloom_cache_fetch(FunctionCallInfo fcinfo, int argno,
										const BloomLayout *layout, BloomView *view);
extern BloomArgCache *bloom_cache_lookup(FunctionCallInfo fcinfo, int argno,
										 const BloomLayout *layout, BloomView *view);

/* The slow paths of the three functions below (types/cache.c). */
extern void bloom_getarg_fetch(FunctionCallInfo fcinfo, int argno, BloomView *view);
extern bool bloom_getarg_lookup_fetch(FunctionCallInfo fcinfo, int argno, BloomView *view);
extern BloomEncoder *bloom_call_encoder_resolve(FunctionCallInfo fcinfo, int argno);

/*
 * The encoder for values of type typid that argument argno holds (the
 * elements of an array argument, whose type the array tells), kept in the
 * call site's cache as bloom_call_encoder's is.  A call site uses one or the
 * other for an argument, never both.
 */
extern BloomEncoder *bloom_call_encoder_of_type(FunctionCallInfo fcinfo, int argno, Oid typid);

/*
 * The fast path of the two functions below: true, with the view, when
 * argument argno is the stored filter the call site holds detoasted.
 */
static inline bool
bloom_getarg_cached(FunctionCallInfo fcinfo, int argno, BloomView *view)
{
	struct varlena *value = (struct varlena *) PG_GETARG_POINTER(argno);
	BloomCallCache *cache = (BloomCallCache *) fcinfo->flinfo->fn_extra;

	if (cache != NULL && argno < lengthof(cache->args) &&
		VARATT_IS_EXTERNAL_ONDISK(value) && cache->args[argno].valid &&
		memcmp(cache->args[argno].toast_pointer, VARDATA_EXTERNAL(value),
			   sizeof(cache->args[argno].toast_pointer)) == 0)
	{
		*view = cache->args[argno].view;
		return true;
	}
	return false;
}

/*
 * The filter in argument argno (which must not be NULL).  An inline value is
 * read in place; an out-of-line (TOASTed) one is detoasted once and kept for
 * the life of the call site (fn_extra), keyed by its toast pointer, so a
 * filter from a stored row or an InitPlan is not fetched again on every row.
 * The header and length are checked: a damaged value raises an ERROR
 * (XX001) instead of being read past its end.
 *
 * Inline here is the per-row case of a semi-join prefilter: the same stored
 * filter again, found by comparing its 16-byte toast pointer.
 */
static inline void
bloom_getarg(FunctionCallInfo fcinfo, int argno, BloomView *view)
{
	if (!bloom_getarg_cached(fcinfo, argno, view))
		bloom_getarg_fetch(fcinfo, argno, view);
}

/*
 * The filter in argument argno for a membership test, which reads k bits:
 * as bloom_getarg, except that a stored filter is fetched by
 * bloom_cache_lookup, so that it may be left in TOAST: then the result is
 * false and view->bits is NULL.  The cached path returns a constant true,
 * so once inlined it tests nothing more than bloom_getarg.
 */
static inline bool
bloom_getarg_lookup(FunctionCallInfo fcinfo, int argno, BloomView *view)
{
	if (bloom_getarg_cached(fcinfo, argno, view))
		return true;
	return bloom_getarg_lookup_fetch(fcinfo, argno, view);
}

/*
 * Whether the value of this hash is in the filter of the layout's type in
 * argument argno, which bloom_getarg_lookup or counting_getarg_lookup left
 * in TOAST (view->bits NULL), read by slices.
 */
extern bool bloom_lookup_slices(FunctionCallInfo fcinfo, int argno, const BloomLayout *layout,
								const BloomView *view, bf_hash hash);

/*
 * Slices of a stored, uncompressed filter (types/slice.c).  The budget is
 * how many TOAST index scans slices of a value may take before detoasting
 * it whole is cheaper; bloom_slice_view reads and checks its header (view
 * bits NULL), ERROR XX001 when damaged; bloom_slice_contains tests a value,
 * adding the index scans it made to *scans.  bloom_slice_raw_size: the bytes
 * such a value detoasts to, 0 if it is not one; bloom_slice_read_whole
 * detoasts it into the caller's memory, without a copy of its own.
 */
extern uint32 bloom_slice_budget(const struct varatt_external *toast_pointer);
extern void bloom_slice_view(struct varlena *value, const BloomLayout *layout, BloomView *view);
extern Size bloom_slice_raw_size(struct varlena *value);
extern void bloom_slice_read_whole(struct varlena *value, const BloomLayout *layout, uint8 *dst);
extern bool bloom_slice_contains(struct varlena *value, const BloomLayout *layout,
								 const BloomView *view, bf_hash hash, uint32 *scans);

/*
 * The encoder for the value in argument argno of this call site, created in
 * fn_mcxt on first use from the argument's actual type.  A call site's
 * argument types are fixed by its expression (fn_expr), so once resolved
 * the encoder stays right.
 */
static inline BloomEncoder *
bloom_call_encoder(FunctionCallInfo fcinfo, int argno)
{
	BloomCallCache *cache = (BloomCallCache *) fcinfo->flinfo->fn_extra;

	if (cache != NULL && cache->encoder != NULL && cache->encoder_argno == argno)
		return cache->encoder;
	return bloom_call_encoder_resolve(fcinfo, argno);
}

/*
 * The hash of the value in argument value_argno for a lookup in (or a
 * removal from) a filter with the view's flags: every filter type's
 * contains and remove.
 */
static pg_attribute_always_inline bf_hash
bloom_hash_argument(FunctionCallInfo fcinfo, int value_argno, const BloomView *view)
{
	return bloom_encoder_hash(bloom_call_encoder(fcinfo, value_argno),
							  PG_GETARG_DATUM(value_argno), view->header.flags, NULL);
}

/*
 * bloom_lookup_slices of the value in argument value_argno, out of line so
 * that the per-row contains paths of bloom and counting_bloom carry nothing
 * of it (types/bloom/element.c).
 */
extern bool bloom_test_slices(FunctionCallInfo fcinfo, int filter_argno, int value_argno,
							  const BloomLayout *layout, const BloomView *view);

/*
 * Equality and hashing of whole filters (types/bloom/compare.c), shared by every
 * filter type's = and hash operator class.  bloom_views_equal: the same m,
 * k, hash scheme, bits (or counters) and, when compare_flags, flags.
 * bloom_hash_view: XXH3-64 with the seed of what bloom_views_equal
 * compares.  bloom_hash_payload: XXH3-64 with the seed of prefix and then
 * bytes, these a stride at a time so that a query can be cancelled.  The
 * hashes must never change: hash indexes and hash partitions store them.
 */
extern bool bloom_views_equal(const BloomView *a, const BloomView *b, bool compare_flags);
extern uint64 bloom_hash_view(const BloomView *view, bool hash_flags, uint64 seed);
extern uint64 bloom_hash_payload(const uint8 *prefix, size_t prefix_length, const uint8 *bytes,
								 size_t nbytes, uint64 seed);

/*
 * The = and hash functions of a type of a BloomLayout (inline: = and hash
 * run per row in joins, hash aggregates and hash indexes): whether its
 * filter arguments 0 and 1 are equal, and the hash of argument 0 with seed,
 * flags included when layout->flags_in_identity.
 *
 * bloom_layout_getarg: argument argno, of the type of layout (as
 * bloom_getarg and counting_getarg give it).
 */
static inline void
bloom_layout_getarg(FunctionCallInfo fcinfo, int argno, const BloomLayout *layout,
					BloomView *view)
{
	if (!bloom_getarg_cached(fcinfo, argno, view))
		bloom_cache_fetch(fcinfo, argno, layout, view);
}

/*
 * Equal: the same m, k, hash scheme and bits (or counters), and flags
 * where the layout says so (counting_bloom's; not bloom's).  Validation
 * makes the format version and the padding bits the same in every valid
 * filter, so this is byte equality of the values.
 */
static inline bool
bloom_layout_args_equal(FunctionCallInfo fcinfo, const BloomLayout *layout)
{
	BloomView	a;
	BloomView	b;

	bloom_layout_getarg(fcinfo, 0, layout, &a);
	bloom_layout_getarg(fcinfo, 1, layout, &b);
	return bloom_views_equal(&a, &b, layout->flags_in_identity);
}

static inline uint64
bloom_layout_arg_hash(FunctionCallInfo fcinfo, const BloomLayout *layout, uint64 seed)
{
	BloomView	view;

	bloom_layout_getarg(fcinfo, 0, layout, &view);
	return bloom_hash_view(&view, layout->flags_in_identity, seed);
}

/*
 * What bloom_array_fold does with an array's values.  first runs at the
 * first non-NULL element: it reads and copies the filter argument, points
 * *flags at the copy's flags, which every hash reads and, when
 * extend_flags, extends as bloom_add does, and returns the encoder for the
 * elements' type.  each takes one value's hash; finish returns the new
 * filter, or NULL when nothing changed.
 */
typedef struct BloomArrayFold
{
	BloomEncoder *(*first) (FunctionCallInfo fcinfo, Oid element_type, void *state,
							uint8 **flags);
	void		(*each) (void *state, bf_hash hash);
	void	   *(*finish) (void *state);
	bool		extend_flags;
} BloomArrayFold;

/*
 * The body of bloom_add_all and its kin (types/bloom/element.c): the filter in
 * argument 0 with the non-NULL elements of the array in argument 1 hashed
 * in turn and handed to fold, what hashing one allocates freed before the
 * next.  A NULL filter gives NULL; a NULL array, one with only NULL
 * elements, or a fold that changes nothing, returns argument 0 itself.
 */
extern Datum bloom_array_fold(FunctionCallInfo fcinfo, const BloomArrayFold *fold, void *state);

#endif							/* BLOOM_PG_H */
