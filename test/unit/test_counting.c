/*
 * test_counting.c: unit tests of counting filters (core/counting.c): the
 * positions are bloom's, add and remove are exact while nothing saturates,
 * saturated counters stay, removing an absent value changes nothing, the
 * whole-array kernels, and the text and binary forms with every rule a
 * decoder must enforce.
 */
#include "harness.h"
#include "core/counting.h"

static uint8_t *
new_counters(uint64_t m)
{
	size_t		nbytes = (size_t) bf_counting_payload_bytes(m);
	uint8_t    *counters = xmalloc(nbytes);

	memset(counters, 0, nbytes);
	return counters;
}

/* A counting filter of the int8 values first .. first + n - 1. */
static uint8_t *
build_counting(uint64_t m, uint32_t k, uint8_t scheme, int64_t first, int64_t n)
{
	uint8_t    *counters = new_counters(m);

	for (int64_t key = first; key < first + n; key++)
		bf_counting_add(counters, m, k, scheme, hash_int64(key));
	return counters;
}

/* Counter i as the layout says: byte i / 2, low nibble for even i. */
static unsigned
naive_counter(const uint8_t *counters, uint64_t i)
{
	return i % 2 == 0 ? counters[i / 2] & 0x0f : counters[i / 2] >> 4;
}

static const struct
{
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;
}			shapes[] = {
	{1, 1, BLOOM_HASH_XXH3_EDH},
	{18, 3, BLOOM_HASH_XXH3_EDH},
	{63, 64, BLOOM_HASH_XXH3_EDH},
	{65, 7, BLOOM_HASH_XXH3_EDH},
	{1000, 7, BLOOM_HASH_XXH3_EDH},
	{95851, 7, BLOOM_HASH_XXH3_EDH},
	{512, 6, BLOOM_HASH_XXH3_BLOCKED},
	{4096, 16, BLOOM_HASH_XXH3_BLOCKED},
	{102400, 6, BLOOM_HASH_XXH3_BLOCKED},
};

#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

UNIT_TEST(counting_sizes)
{
	CHECK_U64(bf_counting_payload_bytes(1), 8);
	CHECK_U64(bf_counting_payload_bytes(16), 8);
	CHECK_U64(bf_counting_payload_bytes(17), 16);
	CHECK_U64(bf_counting_payload_bytes(95851), 47928);
	/* four times bloom's bytes, give or take the word padding */
	CHECK_U64(bf_counting_payload_bytes(64 * 1000), 4 * bloom_payload_bytes(64 * 1000));
	/* the largest filter fits in a 1 GB varlena, one more counter does not */
	CHECK(BLOOM_BITS_OFFSET + bf_counting_payload_bytes(BF_COUNTING_M_MAX) <= BLOOM_MAX_VARLENA_BYTES);
	CHECK(BLOOM_BITS_OFFSET + bf_counting_payload_bytes(BF_COUNTING_M_MAX + 1) > BLOOM_MAX_VARLENA_BYTES);
}

/* Every counter value at every place in a word: bit i is set exactly where counter i is not 0. */
UNIT_TEST(counting_to_bits_every_counter_value)
{
	for (uint64_t m = 1; m <= 200; m += 7)
	{
		uint8_t    *counters = xmalloc((size_t) bf_counting_payload_bytes(m));
		uint8_t    *bits = xmalloc((size_t) bloom_payload_bytes(m));
		bool		agrees = true;

		for (unsigned shift = 0; shift < 16; shift++)
		{
			memset(counters, 0, (size_t) bf_counting_payload_bytes(m));
			for (uint64_t i = 0; i < m; i++)
				counters[i >> 1] |= (uint8_t) (((i + shift) % 16) << ((i & 1) * 4));
			memset(bits, 0xa5, (size_t) bloom_payload_bytes(m));
			bf_counting_to_bits(counters, m, bits);
			for (uint64_t i = 0; i < bloom_payload_bytes(m) * 8; i++)
				agrees &= ((bits[i >> 3] >> (i & 7)) & 1) == (i < m && (i + shift) % 16 != 0);
		}
		CHECK(agrees);
		free(counters);
		free(bits);
	}
}

/* The bloom filter of the values present is bloom's filter of those values, bit for bit. */
UNIT_TEST(counting_positions_are_blooms)
{
	for (size_t s = 0; s < NSHAPES; s++)
	{
		uint64_t	m = shapes[s].m;
		uint32_t	k = shapes[s].k;
		uint8_t		scheme = shapes[s].scheme;
		int64_t		n = (int64_t) (m / 12) + 1;
		uint8_t    *counters = build_counting(m, k, scheme, 1, n);
		uint8_t    *bits = build_filter(m, k, scheme, 1, n, false);
		uint8_t    *cast = xmalloc((size_t) bloom_payload_bytes(m));
		bf_counting_stats stats;
		bool		contains_agrees = true;

		memset(cast, 0xa5, (size_t) bloom_payload_bytes(m));
		bf_counting_to_bits(counters, m, cast);
		CHECK(memcmp(cast, bits, (size_t) bloom_payload_bytes(m)) == 0);
		CHECK_STATUS(bf_counting_check_counters(&(BloomHeader) {1, scheme, (uint8_t) k, 0, m},
												counters, (size_t) bf_counting_payload_bytes(m)), BF_OK);

		/* members and (mostly) non-members: the answers are bloom's */
		for (int64_t key = -200; key < n + 200; key++)
			contains_agrees &= bf_counting_contains(counters, m, k, scheme, hash_int64(key)) ==
				bf_contains(bits, m, k, scheme, hash_int64(key));
		CHECK(contains_agrees);

		bf_counting_stats_of(counters, (size_t) bf_counting_payload_bytes(m), &stats);
		CHECK_U64(stats.nonzero, bf_popcount(bits, (size_t) bloom_payload_bytes(m)));
		if (stats.saturated == 0)
			CHECK_U64(stats.sum, (uint64_t) k * (uint64_t) n);
		free(counters);
		free(bits);
		free(cast);
	}
}

/*
 * Add n values, remove every other one: no kept value is lost, and while
 * nothing saturated the counters are exactly those of the kept values alone.
 */
UNIT_TEST(counting_remove_half)
{
	for (size_t s = 0; s < NSHAPES; s++)
	{
		uint64_t	m = shapes[s].m;
		uint32_t	k = shapes[s].k;
		uint8_t		scheme = shapes[s].scheme;
		int64_t		n = (int64_t) (m / 10) + 2;
		size_t		nbytes = (size_t) bf_counting_payload_bytes(m);
		uint8_t    *counters = build_counting(m, k, scheme, 0, n);
		uint8_t    *kept = new_counters(m);
		bf_counting_stats stats;
		bool		all_removed = true;
		bool		none_lost = true;

		bf_counting_stats_of(counters, nbytes, &stats);
		for (int64_t key = 0; key < n; key += 2)
			all_removed &= bf_counting_remove(counters, m, k, scheme, hash_int64(key));
		CHECK(all_removed);
		for (int64_t key = 1; key < n; key += 2)
		{
			none_lost &= bf_counting_contains(counters, m, k, scheme, hash_int64(key));
			bf_counting_add(kept, m, k, scheme, hash_int64(key));
		}
		CHECK(none_lost);
		if (stats.saturated == 0)
			CHECK(memcmp(counters, kept, nbytes) == 0);
		free(counters);
		free(kept);
	}
}

UNIT_TEST(counting_remove_absent)
{
	uint64_t	m = 1000;
	uint32_t	k = 7;
	size_t		nbytes = (size_t) bf_counting_payload_bytes(m);
	uint8_t    *counters = build_counting(m, k, BLOOM_HASH_XXH3_EDH, 1, 20);
	uint8_t    *before = exact_copy(counters, nbytes);
	int			absent = 0;

	/* every value that tests absent leaves the counters as they are */
	for (int64_t key = 1000; key < 1100; key++)
	{
		if (bf_counting_contains(counters, m, k, BLOOM_HASH_XXH3_EDH, hash_int64(key)))
			continue;
		absent++;
		CHECK(!bf_counting_remove(counters, m, k, BLOOM_HASH_XXH3_EDH, hash_int64(key)));
		CHECK(memcmp(counters, before, nbytes) == 0);
	}
	CHECK(absent > 90);

	/* the empty filter: nothing to remove */
	memset(counters, 0, nbytes);
	CHECK(!bf_counting_remove(counters, m, k, BLOOM_HASH_XXH3_EDH, hash_int64(1)));
	CHECK(bf_popcount(counters, nbytes) == 0);
	free(counters);
	free(before);
}

/*
 * h2 = 0 under scheme 1 and a small m put all k probes on one position
 * (core/probe.h): each probe counts, and a counter brought to zero by an
 * earlier probe of the same value proves it absent.
 */
UNIT_TEST(counting_repeated_position)
{
	bf_hash		hash = {UINT64_C(0x4000000000000000), 0};
	uint64_t	positions[7];
	uint8_t    *counters = new_counters(10);
	uint64_t	p;

	bf_probe_positions(hash, 10, 7, BLOOM_HASH_XXH3_EDH, positions);
	p = positions[0];
	for (int i = 1; i < 7; i++)
		CHECK_U64(positions[i], p);

	bf_counting_add(counters, 10, 7, BLOOM_HASH_XXH3_EDH, hash);
	CHECK_U64(naive_counter(counters, p), 7);
	bf_counting_add(counters, 10, 2, BLOOM_HASH_XXH3_EDH, hash);
	CHECK_U64(naive_counter(counters, p), 9);
	CHECK(bf_counting_remove(counters, 10, 7, BLOOM_HASH_XXH3_EDH, hash));
	CHECK_U64(naive_counter(counters, p), 2);

	/* 2 left, 7 probes: the third finds 0, and the two decrements are undone */
	CHECK(!bf_counting_remove(counters, 10, 7, BLOOM_HASH_XXH3_EDH, hash));
	CHECK_U64(naive_counter(counters, p), 2);
	CHECK(bf_counting_remove(counters, 10, 2, BLOOM_HASH_XXH3_EDH, hash));
	CHECK_U64(naive_counter(counters, p), 0);
	CHECK(!bf_counting_contains(counters, 10, 2, BLOOM_HASH_XXH3_EDH, hash));
	free(counters);
}

/* A counter at 15 stays at 15 on add and remove: no false negative from saturation. */
UNIT_TEST(counting_saturation)
{
	uint64_t	m = 100;
	uint32_t	k = 5;
	uint8_t    *counters = new_counters(m);
	uint64_t	positions[5];
	bf_counting_stats stats;
	bool		contained = true;

	bf_probe_positions(hash_int64(7), m, k, BLOOM_HASH_XXH3_EDH, positions);
	for (int i = 0; i < 20; i++)
		bf_counting_add(counters, m, k, BLOOM_HASH_XXH3_EDH, hash_int64(7));
	for (int i = 0; i < 5; i++)
		CHECK_U64(naive_counter(counters, positions[i]), 15);
	bf_counting_stats_of(counters, (size_t) bf_counting_payload_bytes(m), &stats);
	CHECK(stats.saturated > 0);
	CHECK(stats.sum < 20 * k);

	for (int i = 0; i < 40; i++)
	{
		CHECK(bf_counting_remove(counters, m, k, BLOOM_HASH_XXH3_EDH, hash_int64(7)));
		contained &= bf_counting_contains(counters, m, k, BLOOM_HASH_XXH3_EDH, hash_int64(7));
	}
	CHECK(contained);
	for (int i = 0; i < 5; i++)
		CHECK_U64(naive_counter(counters, positions[i]), 15);
	free(counters);
}

/*
 * The increment and the decrement of every counter value in either nibble
 * of a byte, the other nibble at every value too: one up unless at 15, one
 * down unless at 15 or 0 (0: absent, false), the other nibble unchanged.
 */
UNIT_TEST(counting_increment_every_byte)
{
	for (unsigned b = 0; b < 256; b++)
		for (unsigned half = 0; half < 2; half++)
		{
			uint8_t		counters[1] = {(uint8_t) b};
			unsigned	own = half == 0 ? (b & 15) : (b >> 4);
			unsigned	other = half == 0 ? (b >> 4) : (b & 15);

			bf_counter_increment(counters, half);
			CHECK_U64(naive_counter(counters, half), own == 15 ? 15 : own + 1);
			CHECK_U64(naive_counter(counters, 1 - half), other);

			counters[0] = (uint8_t) b;
			CHECK(bf_counter_decrement(counters, half) == (own != 0));
			CHECK_U64(naive_counter(counters, half), own == 0 || own == 15 ? own : own - 1);
			CHECK_U64(naive_counter(counters, 1 - half), other);
		}
}

UNIT_TEST(counting_union_subtract)
{
	uint64_t	m = 95851;
	uint32_t	k = 7;
	size_t		nbytes = (size_t) bf_counting_payload_bytes(m);
	uint8_t    *a = build_counting(m, k, BLOOM_HASH_XXH3_EDH, 0, 3000);
	uint8_t    *b = build_counting(m, k, BLOOM_HASH_XXH3_EDH, 3000, 2000);
	uint8_t    *both = build_counting(m, k, BLOOM_HASH_XXH3_EDH, 0, 5000);
	uint8_t    *dst = new_counters(m);
	uint64_t	position = 0;
	bf_counting_stats stats;

	/* a + b is the filter of both sets, a - b of a alone (nothing saturated here) */
	bf_counting_stats_of(both, nbytes, &stats);
	CHECK_U64(stats.saturated, 0);
	bf_counting_union(dst, a, b, nbytes);
	CHECK(memcmp(dst, both, nbytes) == 0);
	CHECK(bf_counting_subtract(dst, both, b, nbytes, &position));
	CHECK(memcmp(dst, a, nbytes) == 0);
	/* in place */
	bf_counting_union(a, a, b, nbytes);
	CHECK(memcmp(a, both, nbytes) == 0);

	/* b holds values a does not: the first counter where b exceeds a */
	memset(a, 0, nbytes);
	memset(b, 0, nbytes);
	a[10] = 0x21;				/* counters 20 = 1, 21 = 2 */
	b[10] = 0x30;				/* counter 21 = 3 */
	CHECK(!bf_counting_subtract(dst, a, b, nbytes, &position));
	CHECK_U64(position, 21);

	/* saturating sums; a saturated minuend stays, whatever is taken away */
	a[10] = 0xf9;
	b[10] = 0xf9;
	bf_counting_union(dst, a, b, nbytes);
	CHECK_U64(dst[10], 0xff);
	a[10] = 0xf9;
	b[10] = 0xf4;
	CHECK(bf_counting_subtract(dst, a, b, nbytes, &position));
	CHECK_U64(dst[10], 0xf5);
	/* a saturated subtrahend under an unsaturated minuend is more than it holds */
	a[10] = 0x0e;
	b[10] = 0x0f;
	CHECK(!bf_counting_subtract(dst, a, b, nbytes, &position));
	CHECK_U64(position, 20);
	free(a);
	free(b);
	free(both);
	free(dst);
}

UNIT_TEST(counting_check_counters)
{
	BloomHeader header = {BLOOM_FORMAT_VERSION, BLOOM_HASH_XXH3_EDH, 3, 0, 17};
	uint8_t		counters[16] = {0};

	CHECK_STATUS(bf_counting_check_counters(&header, counters, 16), BF_OK);
	CHECK_STATUS(bf_counting_check_counters(&header, counters, 8), BF_COUNTING_LENGTH);
	CHECK_STATUS(bf_counting_check_counters(&header, counters, 24), BF_COUNTING_LENGTH);
	counters[8] = 0x0f;			/* counter 16, the last */
	CHECK_STATUS(bf_counting_check_counters(&header, counters, 16), BF_OK);
	counters[8] = 0x10;			/* counter 17 >= m */
	CHECK_STATUS(bf_counting_check_counters(&header, counters, 16), BF_COUNTING_PADDING);
	counters[8] = 0;
	counters[15] = 0x01;
	CHECK_STATUS(bf_counting_check_counters(&header, counters, 16), BF_COUNTING_PADDING);

	header.m = 0;
	CHECK_STATUS(bf_counting_check_header(&header), BF_M_RANGE);
	header.m = BF_COUNTING_M_MAX;
	CHECK_STATUS(bf_counting_check_header(&header), BF_OK);
	header.m = BF_COUNTING_M_MAX + 1;
	CHECK_STATUS(bf_counting_check_header(&header), BF_COUNTING_TOO_LARGE);
	header.m = BLOOM_M_MAX + 1;
	CHECK_STATUS(bf_counting_check_header(&header), BF_COUNTING_TOO_LARGE);
	header.m = 1000;
	header.hash_scheme = BLOOM_HASH_XXH3_BLOCKED;
	CHECK_STATUS(bf_counting_check_header(&header), BF_BLOCK_SHAPE);
}

/* ---- serialized forms ---- */

static bf_status
decode_text(const char *text, BloomHeader *header, uint8_t **counters)
{
	size_t		len = strlen(text);
	char	   *copy = exact_copy(text, len);
	size_t		offset = 0;
	bf_status	status;

	*counters = NULL;
	status = bf_counting_text_decode_header(copy, len, header, &offset);
	if (status == BF_OK && bf_counting_text_length(header) != len)
		status = BF_COUNTING_LENGTH;
	if (status == BF_OK)
	{
		*counters = new_counters(header->m);
		status = bf_counting_text_decode_counters(copy + offset, len - offset, header, *counters);
	}
	free(copy);
	return status;
}

UNIT_TEST(counting_text_form)
{
	BloomHeader header = {BLOOM_FORMAT_VERSION, BLOOM_HASH_XXH3_EDH, 3, 0, 18};
	BloomHeader decoded;
	uint8_t    *counters = build_counting(18, 3, BLOOM_HASH_XXH3_EDH, 1, 3);
	uint8_t    *back;
	char		text[128];

	/*
	 * golden: the int8 values 1, 2, 3 at m = 18, k = 3 (sql/counting.sql pins
	 * the same): bytes 00 10 00 21 01 10 10 00 02, counters summing to 9 = k n
	 */
	CHECK_U64(bf_counting_text_length(&header), strlen("counting_bloom:v1:h1:m18:k3:") + 24);
	bf_counting_text_encode(&header, counters, text);
	CHECK(strcmp(text, "counting_bloom:v1:h1:m18:k3:ABAAIQEQEAACAAAAAAAAAA==") == 0);
	if (strcmp(text, "counting_bloom:v1:h1:m18:k3:ABAAIQEQEAACAAAAAAAAAA==") != 0)
		fprintf(stderr, "    got %s\n", text);
	CHECK_STATUS(decode_text(text, &decoded, &back), BF_OK);
	CHECK(decoded.m == 18 && decoded.k == 3 && decoded.hash_scheme == 1 && decoded.flags == 0);
	CHECK(back != NULL && memcmp(back, counters, 16) == 0);
	free(back);

	header.flags = BLOOM_FLAG_TEXT_UTF8;
	bf_counting_text_encode(&header, counters, text);
	CHECK(strncmp(text, "counting_bloom:v1:h1:m18:k3:f1:", 31) == 0);
	CHECK_STATUS(decode_text(text, &decoded, &back), BF_OK);
	CHECK(decoded.flags == BLOOM_FLAG_TEXT_UTF8);
	free(back);

	/* one rule broken each */
	CHECK_STATUS(decode_text("bloom:v1:h1:m18:k3:AAAAAAAAAAA=", &decoded, &back), BF_COUNTING_SYNTAX);
	CHECK_STATUS(decode_text("counting_bloom:v1:h1:m018:k3:AAAAAAAAAAAAAAAAAAAAAA==", &decoded, &back), BF_COUNTING_SYNTAX);
	CHECK_STATUS(decode_text("counting_bloom:v2:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==", &decoded, &back), BF_FORMAT_VERSION);
	CHECK_STATUS(decode_text("counting_bloom:v1:h3:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==", &decoded, &back), BF_HASH_SCHEME);
	CHECK_STATUS(decode_text("counting_bloom:v1:h1:m18:k0:AAAAAAAAAAAAAAAAAAAAAA==", &decoded, &back), BF_K_RANGE);
	CHECK_STATUS(decode_text("counting_bloom:v1:h1:m0:k3:AAAAAAAAAAAAAAAAAAAAAA==", &decoded, &back), BF_M_RANGE);
	CHECK_STATUS(decode_text("counting_bloom:v1:h1:m18:k3:f2:AAAAAAAAAAAAAAAAAAAAAA==", &decoded, &back), BF_FLAGS);
	CHECK_STATUS(decode_text("counting_bloom:v1:h2:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==", &decoded, &back), BF_BLOCK_SHAPE);
	/* the bytes of a bloom filter of m = 18 are a counter array one word short */
	CHECK_STATUS(decode_text("counting_bloom:v1:h1:m18:k3:AAAAAAAAAAA=", &decoded, &back), BF_COUNTING_LENGTH);
	free(back);
	/* counter 18 (m = 18) set: padding */
	CHECK_STATUS(decode_text("counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAA==", &decoded, &back), BF_OK);
	free(back);
	CHECK_STATUS(decode_text("counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAQAAAAAAAA==", &decoded, &back), BF_COUNTING_PADDING);
	free(back);
	CHECK_STATUS(decode_text("counting_bloom:v1:h1:m18:k3:AAAAAAAAAAAAAAAAAAAAAB==", &decoded, &back), BF_BASE64);
	free(back);
	snprintf(text, sizeof(text), "counting_bloom:v1:h1:m%llu:k3:AAAAAAAAAAA=",
			 (unsigned long long) BF_COUNTING_M_MAX + 1);
	CHECK_STATUS(decode_text(text, &decoded, &back), BF_COUNTING_TOO_LARGE);
	free(counters);
}

UNIT_TEST(counting_binary_form)
{
	BloomHeader header = {BLOOM_FORMAT_VERSION, BLOOM_HASH_XXH3_BLOCKED, 6, 1, 512};
	BloomHeader decoded;
	uint8_t    *counters = build_counting(512, 6, BLOOM_HASH_XXH3_BLOCKED, 1, 30);
	size_t		nbytes = (size_t) bf_counting_payload_bytes(512);
	size_t		len = BF_BINARY_HEADER_BYTES + nbytes;
	uint8_t    *form = xmalloc(len + 8);
	const uint8_t *back;

	bf_binary_encode_header(&header, form);
	memcpy(form + BF_BINARY_HEADER_BYTES, counters, nbytes);
	/* m big-endian */
	CHECK(form[10] == 0x02 && form[11] == 0x00);
	CHECK_STATUS(bf_counting_binary_decode(form, len, &decoded, &back), BF_OK);
	CHECK(back == form + BF_BINARY_HEADER_BYTES);
	CHECK(decoded.m == 512 && decoded.k == 6 && decoded.hash_scheme == 2 && decoded.flags == 1);

	CHECK_STATUS(bf_counting_binary_decode(form, len - 1, &decoded, &back), BF_COUNTING_LENGTH);
	CHECK(back == NULL);
	memset(form + len, 0, 8);
	CHECK_STATUS(bf_counting_binary_decode(form, len + 8, &decoded, &back), BF_COUNTING_LENGTH);
	CHECK_STATUS(bf_counting_binary_decode(form, 5, &decoded, &back), BF_COUNTING_LENGTH);
	/* a bloom filter's binary form of the same m is too short */
	CHECK_STATUS(bf_counting_binary_decode(form, BF_BINARY_HEADER_BYTES + 64, &decoded, &back),
				 BF_COUNTING_LENGTH);
	form[3] = 4;
	CHECK_STATUS(bf_counting_binary_decode(form, len, &decoded, &back), BF_FLAGS);
	form[3] = 0;
	form[0] = 2;
	CHECK_STATUS(bf_counting_binary_decode(form, len, &decoded, &back), BF_FORMAT_VERSION);
	free(form);
	free(counters);
}
