/*
 * core/scalable.c: scalable bloom filters, the stored form and its
 * validator, the stage shapes, add and contains (the text form is
 * core/scalable_text.c).
 *
 *
 * stages and their rates
 * ----------------------
 *
 * A filter sized for n values lets through more than its rate p once more
 * than n values are in it.  Almeida et al. (2007) keep the rate however
 * many values arrive by adding filters: stage i (i = 0, 1, ...) is an
 * ordinary filter for n_i = n0 * s^i values at rate
 *
 *     p_i = p0 * r^i,   p0 = p (1 - r)
 *
 * A value is in the scalable filter when some stage holds it, so an absent
 * value gets through with probability 1 - prod(1 - p_i) <= sum p_i =
 * p0 / (1 - r) = p, with any number of stages.  The growth s (2 or 4, the
 * paper's two cases) makes the number of stages grow with log_s of the
 * values, so contains, which tests every stage, costs O(log n) stages; the
 * tightening r trades the first stage's size (p0 = p (1 - r) is smaller as
 * r nears 1) against the later stages' (ln(1/p_i) grows by ln(1/r) a stage).
 * Each stage is sized by bf_default_shape(p_i, n_i), as bloom_empty(p_i,
 * n_i) is (blocked when it is large), computed in bf_real (core/real.h) so
 * that every machine finds the same shapes; p_i itself is computed in
 * bf_real and rounded once to a double.  Stage 0 of a filter made by
 * scalable_bloom_empty is the bloom filter bloom_empty(p0, n0) makes: a
 * scalable filter of one stage casts to that plain filter.
 *
 * Defaults, measured (test/unit/test_scalable.c, scalable_memory_table):
 * s = 2 and r = 0.8.  The bits of the stages that hold n values, against
 * one filter sized optimally for n at the same p = 0.01, n0 = 1,000:
 *
 *     r       10x n0   100x n0   1,000x n0   worst from 1x to 1,000x
 *     0.7     2.155    2.099     1.925       3.76
 *     0.8     2.189    2.025     1.778       3.47
 *     0.85    2.238    2.020     1.734       3.39
 *     0.9     2.328    2.052     1.722       3.36
 *
 * (s = 4: 3.0, 5.2 and 2.2 at r = 0.8.)  Two factors multiply: the last
 * stage is allocated whole when it opens, so the stages hold up to s times
 * the values in them (1.5 at 10x, 1.27 at 100x, 1.02 at 1,000x), and each
 * value costs ln(1/p_i) / ln(1/p) times the bits (1.4 to 1.8 here).  At
 * the counts where the last stage is full the ratio is below 2 (the unit
 * test checks it); just after a stage opens it is up to 3.5.  r = 0.8 is
 * the best of the literature's 0.8 to 0.9 at 10x and within 3% of the best
 * at 100x and 1,000x; r does not change the number of stages, so it does
 * not change what contains costs.  At p = 0.001 the ratios are 1.96, 1.77
 * and 1.53.
 *
 * Why not 2x everywhere.  No filter made of whole Bloom stages can stay
 * within 2x of one optimal filter at every count.  With the stages that
 * hold n values open (capacities c_i, C in all), whatever the rates q_i,
 * as long as they sum to at most p, the bits are at least
 * sum c_i log2(C / (p c_i)) / ln 2 (Gibbs' inequality; the least is at
 * q_i = p c_i / C, which leaves no rate for a further stage): against one
 * optimal filter 1.87, 1.64 and 1.33 at 10x, 100x and 1,000x n0 with
 * growth 2, and 2.40 at 10x with growth 4.  The defaults are within 1.17,
 * 1.24 and 1.34 of that bound while keeping room to grow for ever
 * (test/unit/test_scalable.c, scalable_memory_against_bound).  Fewer bits
 * at 10x would need most of the rate spent on the first four stages, so
 * every later stage would be tighter; smaller stages (growth below 2) mean
 * more of them for contains to test.  A Bloom filter cannot be grown after
 * it is built (its bits do not say where a value would go in a larger
 * one), so the last stage cannot be allocated a part at a time either.
 *
 * Adding.  A value some stage already holds (a duplicate, or a false
 * positive) changes nothing, so duplicates use no capacity; any other goes
 * into the last stage, whose count then grows.  When the last stage's
 * count has reached n_i, the next new value opens stage i + 1 (lazily: a
 * filter of exactly n0 values is one stage).  So every stage but the last
 * is full, which the validator checks.
 *
 * One hash for every stage.  A value is hashed once and each stage maps the
 * same 128-bit hash onto its own m (core/probe.h).  Stages hold disjoint
 * sets of values, hashed independently, so whether an absent value passes
 * stage i and whether it passes stage j are independent given the value's
 * hash; a value whose own probes are unusual (double hashing's coinciding
 * probes, core/probe.h) passes every stage more easily, a positive
 * correlation, which only makes the compound rate smaller than the sum the
 * bound above uses: the bound holds either way.  Measured on 1,000,000
 * absent values (sql/scalable_rate.sql) the compound rate stays below p.
 * No stage-dependent seed is needed, and stage 0 stays bloom's filter.
 *
 * Union.  Two filters of the same parameters are combined stage by stage
 * (bitwise OR; the longer one's extra stages as they are).  The result
 * holds every value of both, but a stage may then hold up to twice its
 * capacity, and the compound rate may exceed p: the count of a stage is
 * capped at its capacity (so the next add opens a new stage), and
 * scalable_bloom_info shows the rate expected from the bits
 * (bf_scalable_current_rate), which is the promise of a union.
 *
 *
 * the stored form
 * ---------------
 *
 * core/scalable.h has the layout: a 36-byte header, then each stage's
 * 24-byte header and bit array.  Every field is little-endian, p and r
 * their IEEE-754 bits, so the bytes are the same on every machine, and the
 * binary form (send and recv) is the stored bytes.  THE LAYOUT OF FORMAT
 * VERSION 1 MUST NEVER CHANGE: a later one gets a new version number.
 * bf_scalable_parse is the one validator; every input path calls it.
 */
#include "core/scalable.h"
#include "core/autosize.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- little-endian fields ---- */

static double
load_le_double(const uint8_t *p)
{
	uint64_t	bits = bf_load_le64(p);
	double		value;

	memcpy(&value, &bits, sizeof(value));
	return value;
}

static void
store_le_double(uint8_t *p, double value)
{
	uint64_t	bits;

	memcpy(&bits, &value, sizeof(bits));
	bf_store_le64(p, bits);
}

/* ---- parameters and stage shapes ---- */

uint64_t
bf_scalable_stage_capacity(const bf_scalable_params *params, uint32_t i)
{
	uint64_t	n = params->n0;

	for (uint32_t j = 0; j < i; j++)
	{
		if (n > (uint64_t) INT64_MAX / params->growth)
			return 0;
		n *= params->growth;
	}
	return n <= (uint64_t) INT64_MAX ? n : 0;
}

double
bf_scalable_stage_rate(const bf_scalable_params *params, uint32_t i)
{
	bf_real		one = bf_real_from_u64(1);
	bf_real		r = bf_real_from_double(params->r);
	bf_real		rate = bf_real_mul(bf_real_from_double(params->p), bf_real_sub(one, r));

	return bf_real_to_double(bf_real_mul(rate, bf_real_pow_u32(r, i)));
}

bf_status
bf_scalable_stage_shape(const bf_scalable_params *params, uint32_t i,
						uint64_t *m, uint32_t *k, uint8_t *scheme)
{
	uint64_t	n = bf_scalable_stage_capacity(params, i);
	double		rate = bf_scalable_stage_rate(params, i);

	*m = 0;
	*k = 0;
	*scheme = BLOOM_HASH_XXH3_EDH;
	if (n == 0)
		return BF_TOO_LARGE;
	if (!(rate > 0.0))
		return BF_K_RANGE;
	return bf_default_shape(rate, (int64_t) n, m, k, scheme);
}

/*
 * The rule for r: every stage the filter can reach before its value would
 * pass PostgreSQL's 1 GB limit must have a shape, i.e. p_i of at least
 * about 1e-19 (k <= 64).  Any r in (0, 1) keeps the sum of the p_i at p;
 * a small r drives p_i below what 64 probes give within a few stages.
 */
bf_status
bf_scalable_check_params(const bf_scalable_params *params)
{
	uint64_t	total = BF_SCALABLE_HEADER_BYTES;

	if (!(params->p > 0.0 && params->p < 1.0))
		return BF_FALSE_POSITIVE_RATE_RANGE;
	if (params->n0 < 1 || params->n0 > (uint64_t) INT64_MAX)
		return BF_CAPACITY_RANGE;
	if (params->growth != 2 && params->growth != 4)
		return BF_GROWTH_RANGE;
	if (!(params->r > 0.0 && params->r < 1.0))
		return BF_TIGHTENING_RANGE;
	for (uint32_t i = 0; i < BF_SCALABLE_STAGES_MAX; i++)
	{
		uint64_t	n = bf_scalable_stage_capacity(params, i);
		double		rate = bf_scalable_stage_rate(params, i);
		uint64_t	m;
		uint32_t	k;
		bf_status	status;

		if (n == 0)
			break;
		status = rate > 0.0 ? bf_optimal_shape(rate, (int64_t) n, &m, &k) : BF_K_RANGE;
		if (status == BF_K_RANGE || status == BF_FALSE_POSITIVE_RATE_RANGE)
			return i == 0 ? BF_K_RANGE : BF_RATE_UNHOLDABLE;
		if (status == BF_TOO_LARGE)
			return i == 0 ? BF_TOO_LARGE : BF_OK;
		total += bf_scalable_stage_bytes(m);
		if (total > BLOOM_MAX_VARLENA_BYTES - 4)
			return i == 0 ? BF_TOO_LARGE : BF_OK;
	}
	return BF_OK;
}

/* ---- the stored form ---- */

void
bf_scalable_write_header(uint8_t *out, const bf_scalable_params *params, uint32_t stages)
{
	out[0] = BF_SCALABLE_FORMAT_VERSION;
	out[1] = params->flags;
	out[2] = params->growth;
	out[3] = params->options;
	bf_store_le32(out + 4, stages);
	store_le_double(out + 8, params->p);
	store_le_double(out + 16, params->r);
	bf_store_le64(out + 24, params->n0);
	bf_store_le32(out + 32, 0);
}

void
bf_scalable_write_stage_header(uint8_t *out, uint64_t count, uint64_t m, uint32_t k,
							   uint8_t scheme)
{
	bf_store_le64(out, count);
	bf_store_le64(out + 8, m);
	out[16] = (uint8_t) k;
	out[17] = scheme;
	memset(out + 18, 0, 6);
}

/*
 * The header's fields into the view, checked: what bf_scalable_parse and
 * bf_scalable_parse_shapes both check of a body of len bytes, of which the
 * first BF_SCALABLE_HEADER_BYTES are at body.
 */
static bf_status
scalable_parse_header(const uint8_t *body, size_t len, bf_scalable_view *view)
{
	bf_scalable_params *params = &view->params;

	if (len < BF_SCALABLE_HEADER_BYTES)
		return BF_LENGTH;
	if ((uint64_t) len > BLOOM_MAX_VARLENA_BYTES - 4)
		return BF_TOO_LARGE;
	if (body[0] != BF_SCALABLE_FORMAT_VERSION)
		return BF_FORMAT_VERSION;
	params->flags = body[1];
	params->growth = body[2];
	params->options = body[3];
	view->stages = bf_load_le32(body + 4);
	params->p = load_le_double(body + 8);
	params->r = load_le_double(body + 16);
	params->n0 = bf_load_le64(body + 24);
	if ((params->flags & ~BLOOM_FLAGS_KNOWN) != 0)
		return BF_FLAGS;
	if ((params->options & ~BF_SCALABLE_OPTIONS_KNOWN) != 0 ||
		view->stages < 1 || view->stages > BF_SCALABLE_STAGES_MAX ||
		bf_load_le32(body + 32) != 0)
		return BF_STAGES;
	if (!(params->p > 0.0 && params->p < 1.0))
		return BF_FALSE_POSITIVE_RATE_RANGE;
	if (params->n0 < 1 || params->n0 > (uint64_t) INT64_MAX)
		return BF_CAPACITY_RANGE;
	if (params->growth != 2 && params->growth != 4)
		return BF_GROWTH_RANGE;
	if (!(params->r > 0.0 && params->r < 1.0))
		return BF_TIGHTENING_RANGE;
	return BF_OK;
}

/* Stage i's 24-byte header into its view and *shape, checked as a bloom header. */
static bf_status
scalable_parse_stage_header(const uint8_t *header, const bf_scalable_params *params,
							uint32_t i, bf_scalable_stage *stage, BloomHeader *shape)
{
	stage->count = bf_load_le64(header);
	stage->m = bf_load_le64(header + 8);
	stage->k = header[16];
	stage->scheme = header[17];
	for (int j = 18; j < BF_SCALABLE_STAGE_HEADER_BYTES; j++)
		if (header[j] != 0)
			return BF_STAGES;
	shape->format_version = BLOOM_FORMAT_VERSION;
	shape->hash_scheme = stage->scheme;
	shape->k = (uint8_t) stage->k;
	shape->flags = params->flags;
	shape->m = stage->m;
	stage->capacity = bf_scalable_stage_capacity(params, i);
	return bf_check_header(shape);
}

bf_status
bf_scalable_parse(const uint8_t *body, size_t len, bool check_shapes, bf_scalable_view *view)
{
	bf_scalable_params *params = &view->params;
	size_t		offset = BF_SCALABLE_HEADER_BYTES;
	bf_status	status;

	if ((status = scalable_parse_header(body, len, view)) != BF_OK)
		return status;
	if (check_shapes && (status = bf_scalable_check_params(params)) != BF_OK)
		return status;

	for (uint32_t i = 0; i < view->stages; i++)
	{
		bf_scalable_stage *stage = &view->stage[i];
		const uint8_t *header = body + offset;
		BloomHeader shape;
		uint64_t	payload;

		if (len - offset < BF_SCALABLE_STAGE_HEADER_BYTES)
			return BF_LENGTH;
		stage->offset = offset;
		if ((status = scalable_parse_stage_header(header, params, i, stage, &shape)) != BF_OK)
			return status;
		payload = bloom_payload_bytes(stage->m);
		if (len - offset - BF_SCALABLE_STAGE_HEADER_BYTES < payload)
			return BF_LENGTH;
		status = bf_check_bits(&shape, header + BF_SCALABLE_STAGE_HEADER_BYTES, (size_t) payload);
		if (status != BF_OK)
			return status;
		if (stage->capacity == 0)
			return BF_STAGES;
		if (stage->count > stage->capacity ||
			(i + 1 < view->stages && stage->count != stage->capacity))
			return BF_STAGE_COUNT;
		if (check_shapes)
		{
			uint64_t	m;
			uint32_t	k;
			uint8_t		scheme;

			if (i == 0 && (params->options & BF_SCALABLE_SELF_SIZED) != 0)
			{
				uint64_t	sketch_m;
				uint32_t	sketch_k;

				/*
				 * the self-sizing aggregate's shape: scheme 1, any m, and the
				 * k of p_0 (built from its values' hashes) or of p (folded
				 * from its sketch, which has p's k)
				 */
				scheme = BLOOM_HASH_XXH3_EDH;
				m = stage->m;
				status = bf_auto_shape(bf_scalable_stage_rate(params, 0), &k, &sketch_m);
				if (status == BF_OK)
					status = bf_auto_shape(params->p, &sketch_k, &sketch_m);
				if (status != BF_OK)
					return status;
				if (stage->k == sketch_k)
					k = sketch_k;
			}
			else if ((status = bf_scalable_stage_shape(params, i, &m, &k, &scheme)) != BF_OK)
				return status;
			if (m != stage->m || k != stage->k || scheme != stage->scheme)
				return BF_STAGE_SHAPE;
		}
		offset += BF_SCALABLE_STAGE_HEADER_BYTES + payload;
	}
	if (offset != len)
		return BF_LENGTH;
	view->length = len;
	return BF_OK;
}

bf_status
bf_scalable_parse_shapes(const uint8_t *head, size_t head_len, size_t len,
						 bf_scalable_view *view)
{
	const bf_scalable_params *params = &view->params;
	uint64_t	offset = BF_SCALABLE_HEADER_BYTES;
	bf_status	status;

	if (head_len < BF_SCALABLE_HEADER_BYTES || head_len > len)
		return BF_LENGTH;
	if ((status = scalable_parse_header(head, len, view)) != BF_OK)
		return status;
	for (uint32_t i = 0; i < view->stages; i++)
	{
		bf_scalable_stage *stage = &view->stage[i];

		stage->offset = (size_t) offset;
		if (i == 0)
		{
			BloomHeader shape;

			if (head_len < BF_SCALABLE_HEAD_BYTES)
				return BF_LENGTH;
			status = scalable_parse_stage_header(head + offset, params, 0, stage, &shape);
			if (status != BF_OK)
				return status;
			stage->count = 0;
		}
		else
		{
			if ((status = bf_scalable_stage_shape(params, i, &stage->m, &stage->k,
												  &stage->scheme)) != BF_OK)
				return status;
			stage->count = 0;
			stage->capacity = bf_scalable_stage_capacity(params, i);
		}
		if (stage->capacity == 0)
			return BF_STAGES;
		/* m is at most BLOOM_M_MAX (bf_check_header): no overflow */
		offset += bf_scalable_stage_bytes(stage->m);
		if (offset > len)
			return BF_LENGTH;
	}
	if (offset != len)
		return BF_LENGTH;
	view->length = len;
	return BF_OK;
}

void
bf_scalable_set_count(uint8_t *body, bf_scalable_view *view, uint32_t i, uint64_t count)
{
	view->stage[i].count = count;
	bf_store_le64(body + view->stage[i].offset, count);
}

bf_scalable_add_result
bf_scalable_add(uint8_t *body, bf_scalable_view *view, bf_hash hash)
{
	uint32_t	last = view->stages - 1;
	bf_scalable_stage *stage = &view->stage[last];

	if (bf_scalable_contains(body, view, hash))
		return BF_SCALABLE_PRESENT;
	if (stage->count >= stage->capacity)
		return BF_SCALABLE_FULL;
	bf_add(body + stage->offset + BF_SCALABLE_STAGE_HEADER_BYTES, stage->m, stage->k,
		   stage->scheme, hash);
	bf_scalable_set_count(body, view, last, stage->count + 1);
	return BF_SCALABLE_ADDED;
}

bf_status
bf_scalable_stage_plan(const bf_scalable_params *params, uint32_t i, uint64_t length,
					   uint64_t *m, uint32_t *k, uint8_t *scheme, uint64_t *new_length)
{
	bf_status	status;

	if (i >= BF_SCALABLE_STAGES_MAX)
		return BF_STAGES;
	status = bf_scalable_stage_shape(params, i, m, k, scheme);
	if (status != BF_OK)
		return status;
	*new_length = length + bf_scalable_stage_bytes(*m);
	if (*new_length > BLOOM_MAX_VARLENA_BYTES - 4)
		return BF_TOO_LARGE;
	return BF_OK;
}

void
bf_scalable_start(uint8_t *body, const bf_scalable_params *params, bf_scalable_view *view)
{
	bf_scalable_write_header(body, params, 0);
	view->params = *params;
	view->stages = 0;
	view->length = BF_SCALABLE_HEADER_BYTES;
}

void
bf_scalable_append_stage(uint8_t *body, bf_scalable_view *view, uint64_t m, uint32_t k,
						 uint8_t scheme)
{
	bf_scalable_stage *stage = &view->stage[view->stages];
	uint64_t	payload = bloom_payload_bytes(m);
	uint8_t    *bits = body + view->length + BF_SCALABLE_STAGE_HEADER_BYTES;

	stage->offset = view->length;
	stage->count = 0;
	stage->m = m;
	stage->k = k;
	stage->scheme = scheme;
	stage->capacity = bf_scalable_stage_capacity(&view->params, view->stages);
	bf_scalable_write_stage_header(body + view->length, 0, m, k, scheme);
	for (uint64_t offset = 0; offset < payload; offset += BF_INTERRUPT_STRIDE)
	{
		if (offset > 0)
			bf_check_interrupts();
		memset(bits + offset, 0,
			   payload - offset < BF_INTERRUPT_STRIDE ? payload - offset : BF_INTERRUPT_STRIDE);
	}
	view->stages++;
	view->length += bf_scalable_stage_bytes(m);
	bf_store_le32(body + 4, view->stages);
}

/* ---- estimates ---- */

double
bf_scalable_current_rate(const uint8_t *body, const bf_scalable_view *view)
{
	double		log_pass_none = 0.0;

	for (uint32_t i = 0; i < view->stages; i++)
	{
		const bf_scalable_stage *stage = &view->stage[i];
		const uint8_t *bits = bf_scalable_bits(body, view, i);
		uint64_t	set = bf_popcount(bits, bloom_payload_bytes(stage->m));

		log_pass_none += log1p(-bf_filter_false_positive_rate(bits, stage->m, stage->k,
															   stage->scheme, set));
	}
	/* 0.0 - x, not -x: an empty filter's rate is 0, and -expm1(0) is -0 */
	return 0.0 - expm1(log_pass_none);
}

double
bf_scalable_cardinality(const uint8_t *body, const bf_scalable_view *view)
{
	double		sum = 0.0;

	for (uint32_t i = 0; i < view->stages; i++)
	{
		const bf_scalable_stage *stage = &view->stage[i];

		sum += bf_estimate_cardinality(stage->m, stage->k, stage->scheme,
									   bf_popcount(bf_scalable_bits(body, view, i),
												   bloom_payload_bytes(stage->m)));
	}
	return sum;
}
