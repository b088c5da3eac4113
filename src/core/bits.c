/*
 * core/bits.c: whole-array kernels: OR, AND, popcount (with a run-time
 * choice of the popcount instruction) and folding.
 *
 *
 * bit layout
 * ----------
 *
 * Bit i is in byte i / 8 under mask 1 << (i % 8) (see core/format.h).  The layout
 * does not depend on the machine's byte order, so the text and binary forms
 * carry the array unchanged.  It is also the layout of little-endian 64-bit
 * words, and the kernels here load 8 bytes at a time through memcpy (a
 * plain unaligned load on the usual machines, which the compiler can
 * vectorize): OR, AND and popcount do not care about the order of bits
 * within a word.  Folding does (it ORs runs of neighbouring bits), so it
 * reads and writes its words as little-endian ones (load_le_word), and a
 * big-endian machine folds to the same bytes.  test/unit/test_autosize.c pins the bytes
 * of filters built by every path (bf_add, the adder, OR and AND, folds,
 * self-sizing) with digests computed on x86-64.
 *
 * Each kernel is an outer loop over strides of BF_INTERRUPT_STRIDE bytes,
 * calling the interrupt hook between them, around a tight inner loop over
 * 64-bit words that the compiler can unroll and vectorize.  nbytes is a
 * multiple of 8 for every filter; a stray tail is handled bytewise anyway,
 * so that no input makes a loop read past the end.
 */
#include "core/core.h"

void		(*bf_interrupt_hook) (void) = NULL;

#define BF_STRIDE_WORDS (BF_INTERRUPT_STRIDE / 8)

/*
 * Eight bytes as a word in the machine's order: for OR, AND and popcount,
 * which treat every bit alike, the order of the bits within a word does
 * not matter.
 */
static inline uint64_t
load_word(const uint8_t *p)
{
	uint64_t	word;

	memcpy(&word, p, sizeof(word));
	return word;
}

static inline void
store_word(uint8_t *p, uint64_t word)
{
	memcpy(p, &word, sizeof(word));
}

/*
 * Eight bytes as a little-endian word: bit i of the word is bit i of the
 * layout (core/format.h).  Whatever shifts or masks bits by position (folding)
 * goes through these (core/core.h), so that a big-endian machine computes the
 * same bytes.
 */
#define load_le_word bf_load_le64
#define store_le_word bf_store_le64

/*
 * Without a popcount instruction in the baseline ISA, __builtin_popcountll
 * becomes a libgcc call.  On x86-64 compile the popcount loops twice, once
 * for CPUs with POPCNT, and pick one at run time.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__POPCNT__)
#define BF_POPCNT_DISPATCH 1
#endif

/* The kernels are inlined into each variant, so each gets its own code. */

static BF_ALWAYS_INLINE uint64_t
popcount_words(const uint8_t *a, size_t nwords)
{
	uint64_t	count = 0;

	for (size_t i = 0; i < nwords; i++)
		count += (uint64_t) __builtin_popcountll(load_word(a + 8 * i));
	return count;
}

static BF_ALWAYS_INLINE uint64_t
popcount_or_words(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	uint64_t	count = 0;

	for (size_t i = 0; i < nwords; i++)
		count += (uint64_t) __builtin_popcountll(load_word(a + 8 * i) |
												 load_word(b + 8 * i));
	return count;
}

static uint64_t
popcount_words_generic(const uint8_t *a, size_t nwords)
{
	return popcount_words(a, nwords);
}

static uint64_t
popcount_or_words_generic(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return popcount_or_words(a, b, nwords);
}

#ifdef BF_POPCNT_DISPATCH
__attribute__((target("popcnt")))
static uint64_t
popcount_words_popcnt(const uint8_t *a, size_t nwords)
{
	return popcount_words(a, nwords);
}

__attribute__((target("popcnt")))
static uint64_t
popcount_or_words_popcnt(const uint8_t *a, const uint8_t *b, size_t nwords)
{
	return popcount_or_words(a, b, nwords);
}

static bool
have_popcnt(void)
{
	static int	known = -1;

	if (known < 0)
	{
		__builtin_cpu_init();
		known = __builtin_cpu_supports("popcnt") ? 1 : 0;
	}
	return known == 1;
}
#endif

static uint64_t
popcount_stride(const uint8_t *a, size_t nwords)
{
#ifdef BF_POPCNT_DISPATCH
	if (have_popcnt())
		return popcount_words_popcnt(a, nwords);
#endif
	return popcount_words_generic(a, nwords);
}

static uint64_t
popcount_or_stride(const uint8_t *a, const uint8_t *b, size_t nwords)
{
#ifdef BF_POPCNT_DISPATCH
	if (have_popcnt())
		return popcount_or_words_popcnt(a, b, nwords);
#endif
	return popcount_or_words_generic(a, b, nwords);
}

/* popcount(a), or popcount(a | b) when b is not NULL, a stride at a time. */
static uint64_t
popcount_strides(const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	size_t		nwords = nbytes / 8;
	uint64_t	count = 0;

	for (size_t start = 0; start < nwords; start += BF_STRIDE_WORDS)
	{
		size_t		n = nwords - start < BF_STRIDE_WORDS ? nwords - start : BF_STRIDE_WORDS;

		if (start > 0)
			bf_check_interrupts();
		if (b != NULL)
			count += popcount_or_stride(a + 8 * start, b + 8 * start, n);
		else
			count += popcount_stride(a + 8 * start, n);
	}
	for (size_t i = nwords * 8; i < nbytes; i++)
		count += (uint64_t) __builtin_popcount(b != NULL ? a[i] | b[i] : a[i]);
	return count;
}

uint64_t
bf_popcount(const uint8_t *bits, size_t nbytes)
{
	return popcount_strides(bits, NULL, nbytes);
}

uint64_t
bf_popcount_or(const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	return popcount_strides(a, b, nbytes);
}

/*
 * dst = a | b and dst = a & b, word by word; dst may be a (in place), and
 * need not be initialized.  One pass over the three arrays: a new union is
 * not a copy of a followed by a second pass that ORs b into it.
 */
static BF_ALWAYS_INLINE void
combine_words(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes, bool is_or)
{
	size_t		nwords = nbytes / 8;

	for (size_t start = 0; start < nwords; start += BF_STRIDE_WORDS)
	{
		size_t		end = nwords - start < BF_STRIDE_WORDS ? nwords : start + BF_STRIDE_WORDS;

		if (start > 0)
			bf_check_interrupts();
		for (size_t i = start; i < end; i++)
		{
			uint64_t	x = load_word(a + 8 * i);
			uint64_t	y = load_word(b + 8 * i);

			store_word(dst + 8 * i, is_or ? x | y : x & y);
		}
	}
	for (size_t i = nwords * 8; i < nbytes; i++)
		dst[i] = is_or ? a[i] | b[i] : a[i] & b[i];
}

void
bf_or(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	combine_words(dst, a, b, nbytes, true);
}

void
bf_and(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	combine_words(dst, a, b, nbytes, false);
}

/*
 * ---- folding ----
 *
 * Folding a scheme 1 filter by f gives the filter of the same values at m / f
 * bits, exactly (core/autosize.c shows why); self-sizing relies on it.
 */

/*
 * How a fold by f = odd * 2^shift is computed.  Output word w depends on the
 * f source words from f*w on (64 f bits): they are first folded by 2^shift
 * into odd "middle" words, a word at a time (squeeze_word), then each run
 * of odd bits of those is ORed into one output bit.  Eight output bits come
 * from odd whole middle bytes, so that step is odd table lookups per output
 * byte: odd_table[t][v] holds the output bits that byte value v sets when
 * it is byte t of the run.  An odd part above 63 goes bit by bit.
 */
#define BF_FOLD_TABLE_ODD 63

typedef struct fold_plan
{
	uint64_t	factor;
	uint64_t	odd;
	unsigned	shift;
	const uint8_t *src;
	uint64_t	src_m;
	uint64_t	src_words;
	/* squeeze_word: after ORing runs, pack bits 2^shift apart */
	unsigned	pack_steps;
	unsigned	pack_shift[6];
	uint64_t	pack_mask[6];
	uint64_t	run_mask;
	uint8_t		odd_table[BF_FOLD_TABLE_ODD][256];
} fold_plan;

static void
fold_plan_init(fold_plan *plan, const uint8_t *src, uint64_t src_m, uint64_t dst_m)
{
	uint64_t	spacing;
	uint64_t	group;

	plan->factor = src_m / dst_m;
	plan->odd = plan->factor;
	plan->shift = 0;
	while (plan->odd % 2 == 0)
	{
		plan->odd /= 2;
		plan->shift++;
	}
	plan->src = src;
	plan->src_m = src_m;
	plan->src_words = bloom_payload_bytes(src_m) / 8;

	/*
	 * Packing bits that are spacing apart: merge pairs of groups of size
	 * group, doubling both, until the groups are whole (group * 64 / spacing
	 * bits at the bottom).
	 */
	plan->pack_steps = 0;
	plan->run_mask = 0;
	if (plan->shift >= 1 && plan->shift <= 6)
	{
		for (uint64_t bit = 0; bit < 64; bit += UINT64_C(1) << plan->shift)
			plan->run_mask |= UINT64_C(1) << bit;
		for (spacing = UINT64_C(1) << plan->shift, group = 1; spacing < 64;
			 spacing *= 2, group *= 2)
		{
			uint64_t	mask = 0;

			for (uint64_t start = 0; start < 64; start += 2 * spacing)
				mask |= ((UINT64_C(1) << (2 * group)) - 1) << start;
			plan->pack_shift[plan->pack_steps] = (unsigned) (spacing - group);
			plan->pack_mask[plan->pack_steps] = mask;
			plan->pack_steps++;
		}
	}

	if (plan->odd > 1 && plan->odd <= BF_FOLD_TABLE_ODD)
		for (uint64_t t = 0; t < plan->odd; t++)
			for (unsigned v = 0; v < 256; v++)
			{
				uint8_t		out = 0;

				for (unsigned i = 0; i < 8; i++)
					if (v & (1u << i))
						out |= (uint8_t) (1u << ((8 * t + i) / plan->odd));
				plan->odd_table[t][v] = out;
			}
}

/* Word index of the source; words past the end read as zero. */
static inline uint64_t
fold_load(const fold_plan *plan, uint64_t index)
{
	return index < plan->src_words ? load_le_word(plan->src + 8 * index) : 0;
}

/* Whether any source bit in [from, from + count) is set. */
static bool
fold_any_bit(const fold_plan *plan, uint64_t from, uint64_t count)
{
	uint64_t	to = from + count;

	if (to > plan->src_m)
		to = plan->src_m;
	while (from < to)
	{
		uint64_t	word = fold_load(plan, from >> 6) >> (from & 63);
		uint64_t	span = 64 - (from & 63);

		if (span > to - from)
		{
			span = to - from;
			word &= (UINT64_C(1) << span) - 1;
		}
		if (word != 0)
			return true;
		from += span;
	}
	return false;
}

/* OR each run of 2^shift bits of x (shift 1..6) into one bit, packed at the bottom. */
static inline uint64_t
squeeze_word(const fold_plan *plan, uint64_t x)
{
	for (unsigned r = 0; r < plan->shift; r++)
		x |= x >> (1u << r);
	x &= plan->run_mask;
	for (unsigned step = 0; step < plan->pack_steps; step++)
		x = (x | (x >> plan->pack_shift[step])) & plan->pack_mask[step];
	return x;
}

/* The 2^shift source words from index first on, folded into one word. */
static inline uint64_t
fold_pow2_word(const fold_plan *plan, uint64_t first)
{
	unsigned	shift = plan->shift;
	uint64_t	out = 0;

	if (shift == 0)
		return fold_load(plan, first);
	if (shift <= 6)
	{
		unsigned	width = 64u >> shift;

		for (uint64_t t = 0; t < (UINT64_C(1) << shift); t++)
			out |= squeeze_word(plan, fold_load(plan, first + t)) << (t * width);
		return out;
	}
	for (unsigned b = 0; b < 64; b++)
	{
		uint64_t	run = UINT64_C(1) << (shift - 6);
		uint64_t	any = 0;

		for (uint64_t t = 0; t < run; t++)
			any |= fold_load(plan, first + b * run + t);
		out |= (uint64_t) (any != 0) << b;
	}
	return out;
}

/* Output word w of the fold. */
static inline uint64_t
fold_word(const fold_plan *plan, uint64_t w)
{
	uint64_t	middle[BF_FOLD_TABLE_ODD];
	uint64_t	out = 0;
	uint64_t	odd = plan->odd;

	if (odd > BF_FOLD_TABLE_ODD)
	{
		for (unsigned b = 0; b < 64; b++)
			if (fold_any_bit(plan, (64 * w + b) * plan->factor, plan->factor))
				out |= UINT64_C(1) << b;
		return out;
	}
	for (uint64_t t = 0; t < odd; t++)
		middle[t] = fold_pow2_word(plan, (w * odd + t) << plan->shift);
	if (odd == 1)
		return middle[0];
	/* output byte j: middle bytes odd*j .. odd*j + odd - 1 */
	for (unsigned j = 0, byte = 0; j < 8; j++)
	{
		unsigned	out_byte = 0;

		for (uint64_t t = 0; t < odd; t++, byte++)
			out_byte |= plan->odd_table[t][(middle[byte >> 3] >> (8 * (byte & 7))) & 0xff];
		out |= (uint64_t) out_byte << (8 * j);
	}
	return out;
}

void
bf_fold(const uint8_t *src, uint64_t src_m, uint8_t *dst, uint64_t dst_m)
{
	fold_plan	plan;
	uint64_t	dst_words = bloom_payload_bytes(dst_m) / 8;

	fold_plan_init(&plan, src, src_m, dst_m);
	for (uint64_t w = 0; w < dst_words; w++)
	{
		if (w % BF_STRIDE_WORDS == BF_STRIDE_WORDS - 1)
			bf_check_interrupts();
		store_le_word(dst + 8 * w, fold_word(&plan, w));
	}
}

uint64_t
bf_fold_popcount(const uint8_t *src, uint64_t src_m, uint64_t dst_m)
{
	fold_plan	plan;
	uint64_t	dst_words = bloom_payload_bytes(dst_m) / 8;
	uint64_t	count = 0;
	uint8_t		buffer[8 * 512];

	fold_plan_init(&plan, src, src_m, dst_m);
	/* fold a block at a time into buffer, and count it with bf_popcount's kernel */
	for (uint64_t start = 0; start < dst_words; start += 512)
	{
		uint64_t	n = dst_words - start < 512 ? dst_words - start : 512;

		if (start % BF_STRIDE_WORDS == 0 && start > 0)
			bf_check_interrupts();
		for (uint64_t w = 0; w < n; w++)
			store_le_word(buffer + 8 * w, fold_word(&plan, start + w));
		count += popcount_stride(buffer, (size_t) n);
	}
	return count;
}
