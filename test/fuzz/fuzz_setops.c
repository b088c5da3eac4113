/*
 * fuzz_setops.c: libFuzzer harness for the whole-array operations, the
 * estimates and the probe sequence, on filters decoded from the input.
 *
 * Input layout:
 *
 *     offset  size  field
 *     0       8     h1 of a probe hash (little-endian)
 *     8       8     h2 of the same hash
 *     16      2     length of filter a (big-endian)
 *     18      la    filter a in the binary form
 *     18+la   rest  filter b in the binary form
 *
 * h1 and h2 also serve, bit for bit, as p and n for bf_optimal_shape.
 * Each filter that decodes is probed with that hash and with the XXH3 hash
 * of the whole input; when both decode to the same shape, OR, AND and
 * popcount are checked against each other.  The invariants are exact: set
 * algebra on bits, and estimates that are never NaN for a valid filter.
 */
#include "fuzz.h"

#define SETOPS_PREFIX_BYTES 18

static uint64_t
read_le64(const uint8_t *p)
{
	uint64_t	value = 0;

	for (int i = 7; i >= 0; i--)
		value = value << 8 | p[i];
	return value;
}

static bool
test_bit(const uint8_t *bits, uint64_t position)
{
	return (bits[position / 8] >> (position % 8)) & 1;
}

/* Every bit set in a is set in b. */
static bool
is_subset(const uint8_t *a, const uint8_t *b, size_t nbytes)
{
	for (size_t i = 0; i < nbytes; i++)
		if ((a[i] & ~b[i]) != 0)
			return false;
	return true;
}

/* Bit by bit, independently of bf_popcount, which is under test. */
static uint64_t
count_bits(const uint8_t *bits, size_t nbytes)
{
	uint64_t	count = 0;

	for (size_t i = 0; i < nbytes * 8; i++)
		count += (bits[i / 8] >> (i % 8)) & 1;
	return count;
}

/* The estimates of a valid filter with X bits set. */
static void
check_estimates(const BloomHeader *header, const uint8_t *bits, uint64_t X)
{
	uint64_t	m = header->m;
	uint32_t	k = header->k;
	double		n = bf_estimate_cardinality(m, k, header->hash_scheme, X);
	double		p = bf_filter_false_positive_rate(bits, m, k, header->hash_scheme, X);

	FUZZ_ASSERT(X <= m);
	FUZZ_ASSERT(!isnan(n) && n >= 0.0);
	FUZZ_ASSERT(!isnan(p) && p >= 0.0 && p <= 1.0);
	if (X == 0)
		FUZZ_ASSERT(n == 0.0 && p == 0.0);
	else if (X < m)
		FUZZ_ASSERT(n > 0.0 && isfinite(n) && p < 1.0);
	else
		FUZZ_ASSERT(isinf(n) && p == 1.0);
}

/*
 * Sizing, with the bits of h1 as the false-positive rate p and those of h2
 * as the capacity n: any double, NaN and infinities included.
 */
static void
check_sizing(uint64_t p_bits, uint64_t n_bits)
{
	double		p;
	int64_t		n;
	uint64_t	m;
	uint32_t	k;
	bf_status	status;

	memcpy(&p, &p_bits, sizeof(p));
	memcpy(&n, &n_bits, sizeof(n));
	status = bf_optimal_shape(p, n, &m, &k);
	if (!(p > 0.0 && p < 1.0))
		FUZZ_ASSERT(status == BF_FALSE_POSITIVE_RATE_RANGE);
	else if (n < 1)
		FUZZ_ASSERT(status == BF_CAPACITY_RANGE);
	else
		FUZZ_ASSERT(status == BF_OK || status == BF_K_RANGE ||
					status == BF_TOO_LARGE);
	if (status == BF_OK)
		FUZZ_ASSERT(bf_check_shape((int64_t) m, (int64_t) k) == BF_OK);

	/* the shape of a new filter: the same verdict; blocked only where allowed */
	{
		uint64_t	default_m;
		uint32_t	default_k;
		uint8_t		scheme;

		FUZZ_ASSERT(bf_default_shape(p, n, &default_m, &default_k, &scheme) == status);
		if (status == BF_OK && scheme == BLOOM_HASH_XXH3_BLOCKED)
		{
			FUZZ_ASSERT(bloom_payload_bytes(m) >= BF_BLOCKED_MIN_BYTES);
			FUZZ_ASSERT(default_m % BLOOM_BLOCK_BITS == 0 && default_m <= BLOOM_M_MAX);
			FUZZ_ASSERT(default_m * 100 <= m * (100 + BF_BLOCKED_MAX_GROWTH_PERCENT));
			FUZZ_ASSERT(default_k >= 1 && default_k <= k);
			/* decided in bf_real; the double estimate may differ in its last bits */
			FUZZ_ASSERT(bf_blocked_false_positive_rate(default_m, default_k, (double) n) <=
						p * (1.0 + 1e-12));
		}
		else if (status == BF_OK)
			FUZZ_ASSERT(scheme == BLOOM_HASH_XXH3_EDH && default_m == m && default_k == k);
	}
}

/* One valid filter: popcount, estimates, and adding and probing a hash. */
static void
check_filter(const BloomHeader *header, const uint8_t *bits, bf_hash hash)
{
	uint64_t	m = header->m;
	uint32_t	k = header->k;
	size_t		nbytes = (size_t) bloom_payload_bytes(m);
	uint64_t	positions[BLOOM_K_MAX];
	uint64_t	X = bf_popcount(bits, nbytes);
	uint64_t	X_added;
	bool		all_set = true;
	uint8_t    *added;

	FUZZ_ASSERT(fuzz_padding_is_zero(m, bits, nbytes));
	FUZZ_ASSERT(X == count_bits(bits, nbytes));
	check_estimates(header, bits, X);

	bf_probe_positions(hash, m, k, header->hash_scheme, positions);
	for (uint32_t i = 0; i < k; i++)
	{
		FUZZ_ASSERT(positions[i] < m);
		all_set = all_set && test_bit(bits, positions[i]);
	}
	FUZZ_ASSERT(bf_contains(bits, m, k, header->hash_scheme, hash) == all_set);

	added = fuzz_copy(bits, nbytes);
	bf_add(added, m, k, header->hash_scheme, hash);
	FUZZ_ASSERT(bf_check_bits(header, added, nbytes) == BF_OK);
	FUZZ_ASSERT(fuzz_padding_is_zero(m, added, nbytes));
	FUZZ_ASSERT(bf_contains(added, m, k, header->hash_scheme, hash));
	for (uint32_t i = 0; i < k; i++)
		FUZZ_ASSERT(test_bit(added, positions[i]));
	FUZZ_ASSERT(is_subset(bits, added, nbytes));
	X_added = bf_popcount(added, nbytes);
	FUZZ_ASSERT(X_added >= X && X_added <= X + k);
	/* adding changes nothing exactly when the value was (maybe) present */
	FUZZ_ASSERT((X_added == X) == all_set);
	FUZZ_ASSERT(bf_popcount_or(bits, added, nbytes) == X_added);
	check_estimates(header, added, X_added);
	free(added);
}

/* Two valid filters of one shape. */
static void
check_pair(const BloomHeader *header, const uint8_t *a, const uint8_t *b,
		   bf_hash hash)
{
	uint64_t	m = header->m;
	uint32_t	k = header->k;
	size_t		nbytes = (size_t) bloom_payload_bytes(m);
	uint64_t	X_a = bf_popcount(a, nbytes);
	uint64_t	X_b = bf_popcount(b, nbytes);
	uint64_t	X_or = bf_popcount_or(a, b, nbytes);
	uint64_t	X_and;
	uint8_t    *union_bits = fuzz_copy(a, nbytes);
	uint8_t    *intersection = fuzz_copy(a, nbytes);
	uint8_t    *self = fuzz_copy(a, nbytes);
	bool		in_a,
				in_b;

	FUZZ_ASSERT(bf_popcount_or(b, a, nbytes) == X_or);
	FUZZ_ASSERT(X_a == count_bits(a, nbytes));
	FUZZ_ASSERT(X_b == count_bits(b, nbytes));

	bf_or_into(union_bits, b, nbytes);
	FUZZ_ASSERT(bf_check_bits(header, union_bits, nbytes) == BF_OK);
	FUZZ_ASSERT(fuzz_padding_is_zero(m, union_bits, nbytes));
	FUZZ_ASSERT(bf_popcount(union_bits, nbytes) == X_or);
	FUZZ_ASSERT(is_subset(a, union_bits, nbytes));
	FUZZ_ASSERT(is_subset(b, union_bits, nbytes));
	for (size_t i = 0; i < nbytes; i++)
		FUZZ_ASSERT(union_bits[i] == (a[i] | b[i]));

	bf_and_into(intersection, b, nbytes);
	FUZZ_ASSERT(bf_check_bits(header, intersection, nbytes) == BF_OK);
	FUZZ_ASSERT(fuzz_padding_is_zero(m, intersection, nbytes));
	X_and = bf_popcount(intersection, nbytes);
	FUZZ_ASSERT(X_and <= X_a && X_and <= X_b);
	FUZZ_ASSERT(X_a + X_b == X_or + X_and);
	FUZZ_ASSERT(is_subset(intersection, a, nbytes));
	FUZZ_ASSERT(is_subset(intersection, b, nbytes));
	for (size_t i = 0; i < nbytes; i++)
		FUZZ_ASSERT(intersection[i] == (a[i] & b[i]));

	/* idempotent, also when source and destination are one array */
	bf_or_into(self, self, nbytes);
	bf_and_into(self, self, nbytes);
	FUZZ_ASSERT(memcmp(self, a, nbytes) == 0);
	bf_or_into(self, union_bits, nbytes);
	FUZZ_ASSERT(memcmp(self, union_bits, nbytes) == 0);

	check_estimates(header, union_bits, X_or);
	check_estimates(header, intersection, X_and);

	in_a = bf_contains(a, m, k, header->hash_scheme, hash);
	in_b = bf_contains(b, m, k, header->hash_scheme, hash);
	FUZZ_ASSERT(bf_contains(intersection, m, k, header->hash_scheme, hash) == (in_a && in_b));
	if (in_a || in_b)
		FUZZ_ASSERT(bf_contains(union_bits, m, k, header->hash_scheme, hash));

	free(self);
	free(intersection);
	free(union_bits);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bf_hash		given;
	bf_hash		derived;
	size_t		length_a;
	size_t		length_b;
	uint8_t    *form_a;
	uint8_t    *form_b;
	BloomHeader header_a;
	BloomHeader header_b;
	const uint8_t *bits_a;
	const uint8_t *bits_b;
	bool		valid_a;
	bool		valid_b;

	if (size < SETOPS_PREFIX_BYTES)
		return 0;
	given.h1 = read_le64(data);
	given.h2 = read_le64(data + 8);
	derived = bf_hash_bytes(data, size);
	check_sizing(given.h1, given.h2);
	length_a = (size_t) data[16] << 8 | data[17];
	if (length_a > size - SETOPS_PREFIX_BYTES)
		return 0;
	length_b = size - SETOPS_PREFIX_BYTES - length_a;

	/* buffers of exactly their length, so that a read past one is caught */
	form_a = fuzz_copy(data + SETOPS_PREFIX_BYTES, length_a);
	form_b = fuzz_copy(data + SETOPS_PREFIX_BYTES + length_a, length_b);
	valid_a = bf_binary_decode(form_a, length_a, &header_a, &bits_a) == BF_OK;
	valid_b = bf_binary_decode(form_b, length_b, &header_b, &bits_b) == BF_OK;

	if (valid_a)
	{
		check_filter(&header_a, bits_a, given);
		check_filter(&header_a, bits_a, derived);
	}
	if (valid_b)
	{
		check_filter(&header_b, bits_b, given);
		check_filter(&header_b, bits_b, derived);
	}
	if (valid_a && valid_b && fuzz_header_equal(&header_a, &header_b))
	{
		check_pair(&header_a, bits_a, bits_b, given);
		check_pair(&header_a, bits_a, bits_b, derived);
	}

	free(form_b);
	free(form_a);
	return 0;
}
