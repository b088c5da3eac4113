/*
 * core/scalable.h: scalable bloom filters (Almeida, Baquero, Preguica and
 * Hutchison 2007, "Scalable Bloom Filters"), plain C with no PostgreSQL
 * dependency: the stored form, its one validator, the stage shapes, the
 * text form (core/scalable_text.c), add and contains.  core/scalable.c has
 * the design notes.
 *
 * A scalable filter is a sequence of ordinary filters, its stages.  Stage i
 * holds up to n_i = n0 * s^i values at false-positive rate
 * p_i = p (1 - r) r^i; the compound rate 1 - prod(1 - p_i) is at most
 * sum p_i = p (1 - r) / (1 - r) = p, however many stages there are.
 *
 * Stored form (the bytes after the varlena length word; the binary form is
 * the same bytes).  Every number is little-endian on every machine, so every
 * machine stores the same bytes:
 *
 *     offset  size  field
 *     0       1     format_version   BF_SCALABLE_FORMAT_VERSION
 *     1       1     flags            BLOOM_FLAG_* (how text was hashed), as bloom's
 *     2       1     growth s         2 or 4
 *     3       1     options          BF_SCALABLE_SELF_SIZED or 0
 *     4       4     stages           1..BF_SCALABLE_STAGES_MAX
 *     8       8     p                IEEE-754 binary64 bits, in (0, 1)
 *     16      8     r                IEEE-754 binary64 bits, in (0, 1)
 *     24      8     n0               1..INT64_MAX
 *     32      4     reserved         zero
 *     36            the stages, one after the other:
 *         0   8     count            values added to the stage, <= n_i; n_i in
 *                                    every stage but the last
 *         8   8     m                bits, as bloom's
 *         16  1     k
 *         17  1     hash_scheme      BLOOM_HASH_XXH3_EDH or _BLOCKED
 *         18  6     reserved         zero
 *         24  n     bits             n = bloom_payload_bytes(m), padding bits zero
 *
 * The header is 36 bytes so that in a value with a 4-byte varlena header
 * every stage's bit array starts on an 8-byte boundary.
 */
#ifndef BLOOM_CORE_SCALABLE_H
#define BLOOM_CORE_SCALABLE_H

#include "core/core.h"

#define BF_SCALABLE_FORMAT_VERSION 1
#define BF_SCALABLE_HEADER_BYTES 36
#define BF_SCALABLE_STAGE_HEADER_BYTES 24
#define BF_SCALABLE_STAGES_MAX 64

/*
 * options: stage 0 was sized by scalable_bloom_agg for the values it holds
 * (core/autosize.c), not by bf_default_shape(p_0, n0): a scheme 1 shape of
 * the self-sizing k of p_0 or of p (core/scalable.c), with n0 its count.
 */
#define BF_SCALABLE_SELF_SIZED 0x01
#define BF_SCALABLE_OPTIONS_KNOWN BF_SCALABLE_SELF_SIZED

/* The defaults of scalable_bloom_empty(p, n0) (core/scalable.c says why). */
#define BF_SCALABLE_DEFAULT_GROWTH 2
#define BF_SCALABLE_DEFAULT_TIGHTENING 0.8

/* The parameters, as the code handles them. */
typedef struct bf_scalable_params
{
	double		p;
	double		r;
	uint64_t	n0;
	uint8_t		growth;
	uint8_t		flags;			/* BLOOM_FLAG_* */
	uint8_t		options;		/* BF_SCALABLE_* */
} bf_scalable_params;

typedef struct bf_scalable_stage
{
	uint64_t	count;
	uint64_t	capacity;		/* n_i */
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;
	size_t		offset;			/* of the stage header in the body */
} bf_scalable_stage;

/* A validated body: its parameters and where each stage is. */
typedef struct bf_scalable_view
{
	bf_scalable_params params;
	uint32_t	stages;
	size_t		length;			/* of the body */
	bf_scalable_stage stage[BF_SCALABLE_STAGES_MAX];
} bf_scalable_view;

/* The bit array of stage i of the body the view was made from. */
static inline const uint8_t *
bf_scalable_bits(const uint8_t *body, const bf_scalable_view *view, uint32_t i)
{
	return body + view->stage[i].offset + BF_SCALABLE_STAGE_HEADER_BYTES;
}

/*
 * Check parameters: p and r in (0, 1), n0 >= 1, growth 2 or 4, and that
 * every stage up to the one that would take the filter past PostgreSQL's
 * 1 GB value limit has a shape (k <= 64): BF_FALSE_POSITIVE_RATE_RANGE,
 * BF_CAPACITY_RANGE, BF_GROWTH_RANGE, BF_TIGHTENING_RANGE, BF_K_RANGE or
 * BF_TOO_LARGE (stage 0 has none), BF_RATE_UNHOLDABLE (a later one has
 * none).
 */
extern bf_status bf_scalable_check_params(const bf_scalable_params *params);

/* n0 * s^i, or 0 when it exceeds INT64_MAX. */
extern uint64_t bf_scalable_stage_capacity(const bf_scalable_params *params, uint32_t i);

/* p (1 - r) r^i, computed in bf_real and rounded once to a double. */
extern double bf_scalable_stage_rate(const bf_scalable_params *params, uint32_t i);

/*
 * The shape of stage i: bf_default_shape(p_i, n_i); BF_TOO_LARGE when n_i
 * overflows, else bf_default_shape's status.
 */
extern bf_status bf_scalable_stage_shape(const bf_scalable_params *params, uint32_t i,
										 uint64_t *m, uint32_t *k, uint8_t *scheme);

/*
 * The one validator of a body of len bytes, for every path a value comes
 * in by: header fields, every stage's fields, lengths and padding bits,
 * counts (<= capacity, full in every stage but the last), the exact total
 * length.  With check_shapes (text and binary input) also that the
 * parameters are valid and every stage has the shape they give; a stored
 * value, which came in through one of those, is not recomputed on every
 * read.  On BF_OK the view describes the body.
 */
extern bf_status bf_scalable_parse(const uint8_t *body, size_t len, bool check_shapes,
								   bf_scalable_view *view);

/*
 * The view of a body of len bytes for membership tests, from its first
 * head_len bytes (BF_SCALABLE_HEAD_BYTES, or all of a shorter body), so
 * that a stored value can be read by parts: the header checked as
 * bf_scalable_parse checks it, stage 0's shape from its stage header (a
 * self-sized one is not the parameters'), every later stage's from the
 * parameters (bf_scalable_stage_shape, which every stage after the first
 * has), and len against the total they give.  The counts are not read
 * (0); the bits are not checked.
 */
#define BF_SCALABLE_HEAD_BYTES (BF_SCALABLE_HEADER_BYTES + BF_SCALABLE_STAGE_HEADER_BYTES)
extern bf_status bf_scalable_parse_shapes(const uint8_t *head, size_t head_len, size_t len,
										  bf_scalable_view *view);

/* Write the 36-byte header, and a stage's 24-byte header, at out. */
extern void bf_scalable_write_header(uint8_t *out, const bf_scalable_params *params,
									 uint32_t stages);
extern void bf_scalable_write_stage_header(uint8_t *out, uint64_t count, uint64_t m,
										   uint32_t k, uint8_t scheme);

/* Body bytes of a stage of m bits, header included. */
static inline uint64_t
bf_scalable_stage_bytes(uint64_t m)
{
	return BF_SCALABLE_STAGE_HEADER_BYTES + bloom_payload_bytes(m);
}

/* Set the count of stage i of the body to count. */
extern void bf_scalable_set_count(uint8_t *body, bf_scalable_view *view, uint32_t i,
								  uint64_t count);

/*
 * Whether any stage holds the hash, the newest (largest) first: a value
 * added uniformly is most often in the last stage, which holds about half
 * of them under growth 2.  Each stage is bf_contains, which reads all k
 * bits without a branch: an exit at the first bit not set, tried, made an
 * absent value 20% to 50% slower at 100x n0 (7 stages, 86 to 111 ns
 * against 70 ns; branches taken half the time are mispredicted half the
 * time), and present values no faster.
 */
static inline bool
bf_scalable_contains(const uint8_t *body, const bf_scalable_view *view, bf_hash hash)
{
	for (uint32_t i = view->stages; i-- > 0;)
	{
		const bf_scalable_stage *stage = &view->stage[i];

		if (bf_contains(bf_scalable_bits(body, view, i), stage->m, stage->k, stage->scheme, hash))
			return true;
	}
	return false;
}

/* What bf_scalable_add did. */
typedef enum bf_scalable_add_result
{
	BF_SCALABLE_PRESENT,		/* some stage tests positive: nothing changed */
	BF_SCALABLE_ADDED,			/* set in the last stage, its count one more */
	BF_SCALABLE_FULL			/* the last stage is full: open a stage first */
} bf_scalable_add_result;

/*
 * Add a hash to a body whose view is current: nothing when some stage holds
 * it already (a duplicate uses no capacity), else into the last stage
 * unless it is full.
 */
extern bf_scalable_add_result bf_scalable_add(uint8_t *body, bf_scalable_view *view,
											  bf_hash hash);

/*
 * The shape of stage i and the body length once it is appended to a body of
 * length bytes: BF_STAGES past BF_SCALABLE_STAGES_MAX stages, BF_TOO_LARGE
 * past PostgreSQL's 1 GB value limit, else bf_scalable_stage_shape's status.
 */
extern bf_status bf_scalable_stage_plan(const bf_scalable_params *params, uint32_t i,
										uint64_t length, uint64_t *m, uint32_t *k,
										uint8_t *scheme, uint64_t *new_length);

/*
 * Start a body (BF_SCALABLE_HEADER_BYTES bytes, then room for the stages
 * to be appended): its header with no stage yet, and its view.
 */
extern void bf_scalable_start(uint8_t *body, const bf_scalable_params *params,
							  bf_scalable_view *view);

/*
 * Open stage view->stages: the body must have room for
 * bf_scalable_stage_bytes(m) more bytes after view->length, with (m, k,
 * scheme) from bf_scalable_stage_shape.  The new stage is empty; the view
 * and the stage count in the header are updated.
 */
extern void bf_scalable_append_stage(uint8_t *body, bf_scalable_view *view,
									 uint64_t m, uint32_t k, uint8_t scheme);

/*
 * The expected compound rate of the filter as it is, from its bits:
 * 1 - prod(1 - rate_i), rate_i bf_filter_false_positive_rate of stage i.
 */
extern double bf_scalable_current_rate(const uint8_t *body, const bf_scalable_view *view);

/* The sum of the stages' Swamidass-Baldi estimates (+Infinity if one is saturated). */
extern double bf_scalable_cardinality(const uint8_t *body, const bf_scalable_view *view);

/*
 * Text form:
 *
 *   scalable_bloom:v1:p<p>:n<n0>:s<s>:r<r>:[f<flags>:][o<options>:]<stage>[;<stage>...]
 *   stage:  c<count>:h<scheme>:m<m>:k<k>:<base64 of the bit array>
 *
 * p and r in the shortest decimal that reads back as the same double (%g
 * style, such as 0.01, 0.85 or 1e-05); integers without sign or leading
 * zeros; base64 as bloom's.  The flags and options segments are there only
 * when not zero.  Every value has exactly one text form.
 */
extern uint64_t bf_scalable_text_length(const uint8_t *body, const bf_scalable_view *view);
/* Writes bf_scalable_text_length() characters and a NUL. */
extern void bf_scalable_text_encode(const uint8_t *body, const bf_scalable_view *view,
									char *out);

/*
 * Decode the text form in text[0..len): with body NULL only measure it,
 * setting *body_len to the length of the body it gives (checking its
 * syntax, not its bits); then with body of *body_len bytes, decode it
 * there.  The caller then validates the body with bf_scalable_parse.
 */
extern bf_status bf_scalable_text_decode(const char *text, size_t len, uint8_t *body,
										 size_t *body_len);

/* The shortest decimal of a double that reads back as it (at most 24 characters and a NUL). */
#define BF_DECIMAL_MAX 32
extern size_t bf_double_decimal(double value, char *out);

#endif							/* BLOOM_CORE_SCALABLE_H */
