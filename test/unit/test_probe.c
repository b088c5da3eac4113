/*
 * test_probe.c: unit tests of hashing and the probes: the golden hash
 * vectors, scheme 1's probe sequence, the adder, scheme 2 (blocked) probes,
 * and the golden filters every machine must build.
 */
#include "harness.h"

UNIT_TEST(hash_golden)
{
	const uint64_t big_m = ((uint64_t) 1 << 40) + 3;

	for (size_t g = 0; g < NGOLDEN; g++)
	{
		void	   *bytes = exact_copy(golden[g].bytes, golden[g].len);
		bf_hash		hash = bf_hash_bytes(bytes, golden[g].len);
		uint64_t	positions[7];

		free(bytes);
		CHECK_U64(hash.h1, golden[g].h1);
		CHECK_U64(hash.h2, golden[g].h2);

		bf_probe_positions(hash, 958506, 7, BLOOM_HASH_XXH3_EDH, positions);
		for (int i = 0; i < 7; i++)
			CHECK_U64(positions[i], golden[g].positions_958506[i]);
		bf_probe_positions(hash, big_m, 7, BLOOM_HASH_XXH3_EDH, positions);
		for (int i = 0; i < 7; i++)
			CHECK_U64(positions[i], golden[g].positions_2_40_plus_3[i]);
	}
	/* the int8 canonical bytes used by the tests below are the golden ones */
	CHECK_U64(hash_int64(42).h1, golden[3].h1);
}

/*
 * The canonical bits of floats: their IEEE-754 bits, -0 as +0, every NaN
 * (either sign, quiet or signaling, any payload) as one.
 */
UNIT_TEST(float8_canonical_bits)
{
	const uint64_t nans[] = {UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000),
		UINT64_C(0x7ff0000000000001), UINT64_C(0x7fffffffffffffff), UINT64_C(0xfff4000000000abc)};
	double		value;

	for (size_t i = 0; i < sizeof(nans) / sizeof(nans[0]); i++)
	{
		memcpy(&value, &nans[i], sizeof(value));
		CHECK_U64(bf_float8_canonical_bits(value), BF_CANONICAL_NAN_BITS);
	}
	CHECK_U64(bf_float8_canonical_bits(-0.0), 0);
	CHECK_U64(bf_float8_canonical_bits(0.0), 0);
	CHECK_U64(bf_float8_canonical_bits(1.5), UINT64_C(0x3ff8000000000000));
	CHECK_U64(bf_float8_canonical_bits(-INFINITY), UINT64_C(0xfff0000000000000));
	CHECK_U64(bf_float8_canonical_bits((double) 0.1f), UINT64_C(0x3fb99999a0000000));
}

/*
 * bf_probe_positions, bf_add_hash and bf_contains_hash against the closed
 * form reduce(h1 + i*h2 + (i^3 - i)/6 mod 2^64, m), for random hashes and
 * shapes up to k = 64.
 */
UNIT_TEST(probe_sequence)
{
	bool		positions_ok = true;
	bool		add_ok = true;

	for (int trial = 0; trial < 2000; trial++)
	{
		bf_hash		hash = {rng_next(), rng_next()};
		uint64_t	m = 1 + rng_next() % (trial % 2 ? 5000 : 64);
		uint32_t	k = 1 + (uint32_t) (rng_next() % BLOOM_K_MAX);
		uint64_t	positions[BLOOM_K_MAX];
		uint8_t    *bits = xmalloc((size_t) bloom_payload_bytes(m));
		uint8_t    *expected = xmalloc((size_t) bloom_payload_bytes(m));

		if (trial == 0)
			hash.h2 = 0;		/* degenerate h2: the cubic term still moves */
		memset(bits, 0, (size_t) bloom_payload_bytes(m));
		memset(expected, 0, (size_t) bloom_payload_bytes(m));
		bf_probe_positions(hash, m, k, BLOOM_HASH_XXH3_EDH, positions);
		for (uint64_t i = 0; i < k; i++)
		{
			uint64_t	g = hash.h1 + i * hash.h2 + (i * i * i - i) / 6;
#ifdef __SIZEOF_INT128__
			uint64_t	position = (uint64_t) (((unsigned __int128) g * m) >> 64);
#else
			uint64_t	position = bf_reduce(g, m);	/* pinned by the golden vectors */
#endif

			positions_ok &= positions[i] == position && position < m;
			naive_set_bit(expected, position);
		}
		bf_add_hash(bits, m, k, hash);
		add_ok &= memcmp(bits, expected, (size_t) bloom_payload_bytes(m)) == 0;
		add_ok &= bf_contains_hash(bits, m, k, hash);
		free(bits);
		free(expected);
	}
	CHECK(positions_ok);
	CHECK(add_ok);

	/* bf_reduce at the extremes */
	CHECK_U64(bf_reduce(0, 958506), 0);
	CHECK_U64(bf_reduce(UINT64_MAX, 958506), 958505);
	CHECK_U64(bf_reduce(UINT64_MAX, BLOOM_M_MAX), BLOOM_M_MAX - 1);
	CHECK_U64(bf_reduce((uint64_t) 1 << 63, 958506), 479253);
	CHECK_U64(bf_reduce(UINT64_MAX, 1), 0);
}

/*
 * bf_adder sets exactly the bits bf_add_hash sets, pipelined or not, for any
 * number of values (fewer than, equal to and more than the ring's depth),
 * and after flush nothing is pending; adding after a flush goes on right.
 */
UNIT_TEST(adder)
{
	static bf_adder adder;
	bool		same = true;

	for (int trial = 0; trial < 200; trial++)
	{
		uint64_t	m = 1 + rng_next() % (trial % 2 ? 100000 : 700);
		uint32_t	k = 1 + (uint32_t) (rng_next() % BLOOM_K_MAX);
		int			values = (int) (rng_next() % (3 * BF_ADDER_DEPTH + 2));
		size_t		nbytes = (size_t) bloom_payload_bytes(m);
		uint8_t    *bits = xmalloc(nbytes);
		uint8_t    *expected = xmalloc(nbytes);

		memset(bits, 0, nbytes);
		memset(expected, 0, nbytes);
		bf_adder_init(&adder, bits, m, k, BLOOM_HASH_XXH3_EDH);
		same &= !adder.pipelined;	/* these filters fit in any cache */
		adder.pipelined = trial % 3 != 0;
		for (int round = 0; round < 2; round++)
		{
			for (int v = 0; v < values; v++)
			{
				bf_hash		hash = {rng_next(), rng_next()};

				bf_add_hash(expected, m, k, hash);
				bf_adder_add(&adder, hash);
			}
			bf_adder_flush(&adder);
			same &= adder.pending == 0;
			same &= memcmp(bits, expected, nbytes) == 0;
		}
		free(bits);
		free(expected);
	}
	CHECK(same);

	/* a filter of BF_ADDER_MIN_BYTES or more is pipelined */
	bf_adder_init(&adder, NULL, BF_ADDER_MIN_BYTES * 8, 7, BLOOM_HASH_XXH3_EDH);
	CHECK(adder.pipelined);
	bf_adder_init(&adder, NULL, BF_ADDER_MIN_BYTES * 8 - 64, 7, BLOOM_HASH_XXH3_EDH);
	CHECK(!adder.pipelined);
}

/*
 * bf_region_adder sets exactly the bits bf_add_hash sets: filters of one
 * region, of a part of one, and of several with a partial last one; buffers
 * of one line a region (a flush every few values) and larger; flushed
 * between rounds and not.
 */
UNIT_TEST(region_adder)
{
	static const uint64_t sizes[] = {
		1, 700, ((uint64_t) 1 << BF_REGION_BITS) - 3, (uint64_t) 1 << BF_REGION_BITS,
		((uint64_t) 3 << BF_REGION_BITS) + 12345
	};
	bool		same = true;
	int			flushes_seen = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		for (int trial = 0; trial < 4; trial++)
		{
			uint64_t	m = sizes[i];
			uint32_t	k = 1 + (uint32_t) (rng_next() % BLOOM_K_MAX);
			size_t		buffer_bytes = trial % 2 ? 0 : (size_t) 1 << 16;
			size_t		nbytes = (size_t) bloom_payload_bytes(m);
			uint8_t    *bits = xmalloc(nbytes);
			uint8_t    *expected = xmalloc(nbytes);
			void	   *memory = xmalloc(bf_region_adder_memory(m, buffer_bytes));
			bf_region_adder adder;
			int			values = 1000 + (int) (rng_next() % 3000);

			memset(bits, 0, nbytes);
			memset(expected, 0, nbytes);
			bf_region_adder_init(&adder, bits, m, k, memory, buffer_bytes);
			same &= adder.capacity % BF_REGION_STAGE == 0 && adder.capacity >= BF_REGION_STAGE;
			same &= ((uintptr_t) adder.buffer & 63) == 0 && ((uintptr_t) adder.staged & 63) == 0;
			for (int round = 0; round < 2; round++)
			{
				for (int v = 0; v < values; v++)
				{
					bf_hash		hash = {rng_next(), rng_next()};

					bf_add_hash(expected, m, k, hash);
					bf_region_adder_add(&adder, hash);
				}
				/* a flush has happened when bits have been set already */
				if (memcmp(bits, expected, nbytes) != 0 && bf_popcount(bits, nbytes) > 0)
					flushes_seen++;
				if (round == 0 && trial >= 2)
					continue;	/* the second round adds to unflushed offsets */
				bf_region_adder_flush(&adder);
				same &= memcmp(bits, expected, nbytes) == 0;
			}
			bf_region_adder_flush(&adder);
			same &= memcmp(bits, expected, nbytes) == 0;
			free(memory);
			free(bits);
			free(expected);
		}
	}
	CHECK(same);
	CHECK(flushes_seen > 0);
}

/* need_bits for the lazy adder test: a zeroed array, counted. */
typedef struct lazy_bits
{
	uint8_t    *bits;
	size_t		nbytes;
	int			calls;
} lazy_bits;

static uint8_t *
lazy_need_bits(void *arg)
{
	lazy_bits  *lazy = (lazy_bits *) arg;

	lazy->calls++;
	lazy->bits = xmalloc(lazy->nbytes + 1);
	memset(lazy->bits, 0, lazy->nbytes);
	return lazy->bits;
}

/*
 * An adder with no bits yet writes the sparse form its probes would set:
 * the same bytes bf_sparse_encode writes from the bits, or 0 exactly when
 * that is the masks form; it asks for the bits only when a buffer is full
 * or it is flushed, and then sets exactly bf_add_hash's bits.  Filters of
 * one region, a part of one and several; a few values (gaps) and many
 * (masks); buffers that fill and that do not.
 */
UNIT_TEST(region_adder_lazy)
{
	static const uint64_t sizes[] = {
		700, (uint64_t) 1 << BF_REGION_BITS, ((uint64_t) 40 << BF_REGION_BITS) + 12345
	};
	static const int counts[] = {0, 1, 50, 3000, 20000, 60000};
	bool		same = true,
				sparse_same = true,
				lazy_ok = true;
	int			gaps_seen = 0,
				masks_seen = 0,
				early_bits = 0;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		{
			uint64_t	m = sizes[i];
			uint32_t	k = 7;
			size_t		nbytes = (size_t) bloom_payload_bytes(m);
			size_t		buffer_bytes = nbytes;
			uint8_t    *expected = xmalloc(nbytes + 1);
			uint8_t    *form = xmalloc(bf_sparse_bound(nbytes));
			uint8_t    *from_bits = xmalloc(bf_sparse_bound(nbytes));
			void	   *memory = xmalloc(bf_region_adder_memory(m, buffer_bytes));
			bf_region_adder adder;
			lazy_bits	lazy = {NULL, nbytes, 0};
			size_t		length;
			size_t		expected_length;

			memset(expected, 0, nbytes);
			bf_region_adder_init(&adder, NULL, m, k, memory, buffer_bytes);
			adder.need_bits = lazy_need_bits;
			adder.need_bits_arg = &lazy;
			for (int v = 0; v < counts[c]; v++)
			{
				bf_hash		hash = {rng_next(), rng_next()};

				bf_add_hash(expected, m, k, hash);
				bf_region_adder_add(&adder, hash);
			}
			expected_length = bf_sparse_encode(expected, nbytes, from_bits);
			if (lazy.calls == 0)
			{
				length = bf_region_adder_sparse(&adder, form);
				if (from_bits[0] == BF_SPARSE_GAPS)
				{
					gaps_seen++;
					sparse_same &= length == expected_length &&
						memcmp(form, from_bits, length) == 0;
				}
				else
				{
					masks_seen++;
					sparse_same &= length == 0;
				}
				lazy_ok &= lazy.calls == 0;
			}
			else
				early_bits++;
			bf_region_adder_flush(&adder);
			lazy_ok &= lazy.calls == 1 && adder.bits == lazy.bits;
			same &= memcmp(lazy.bits, expected, nbytes) == 0;
			free(lazy.bits);
			free(memory);
			free(form);
			free(from_bits);
			free(expected);
		}
	CHECK(same);
	CHECK(sparse_same);
	CHECK(lazy_ok);
	CHECK(gaps_seen > 0);
	CHECK(masks_seen > 0);
	CHECK(early_bits > 0);
}

/* ---- scheme 2: blocked filters ---- */

/*
 * Positions of the golden hashes under scheme 2, computed apart from this
 * code (Python integers): block floor(h1 * (m/512) / 2^64), then 9-bit
 * fields of h2 and, from the eighth probe on, of fmix64(h2 + j * 0x9e37...).
 */
static const uint64_t golden_blocked_98959360_k6[][6] = {
	{37112536, 37112780, 37112401, 37112416, 37112429, 37112656},
	{89207860, 89207988, 89207996, 89207819, 89208055, 89208189},
	{65563392, 65563556, 65563617, 65563431, 65563294, 65563240},
	{37789318, 37789439, 37789560, 37789674, 37789666, 37789529},
};
static const uint64_t golden_blocked_2_33_k16[][16] = {
	{3221456600, 3221456844, 3221456465, 3221456480, 3221456493, 3221456720, 3221456486,
	3221456502, 3221456458, 3221456645, 3221456700, 3221456681, 3221456727, 3221456481,
	3221456572, 3221456527},
	{7743497268, 7743497396, 7743497404, 7743497227, 7743497463, 7743497597, 7743497381,
	7743497595, 7743497411, 7743497407, 7743497660, 7743497458, 7743497291, 7743497436,
	7743497416, 7743497316},
	{5691084544, 5691084708, 5691084769, 5691084583, 5691084446, 5691084392, 5691084670,
	5691084551, 5691084696, 5691084767, 5691084362, 5691084413, 5691084513, 5691084420,
	5691084442, 5691084739},
	{3280219270, 3280219391, 3280219512, 3280219626, 3280219618, 3280219481, 3280219246,
	3280219593, 3280219272, 3280219632, 3280219219, 3280219335, 3280219233, 3280219368,
	3280219289, 3280219427},
};

UNIT_TEST(blocked_golden)
{
	for (size_t g = 0; g < NGOLDEN; g++)
	{
		bf_hash		hash = {golden[g].h1, golden[g].h2};
		uint64_t	positions[16];

		bf_probe_positions(hash, 98959360, 6, BLOOM_HASH_XXH3_BLOCKED, positions);
		for (int i = 0; i < 6; i++)
			CHECK_U64(positions[i], golden_blocked_98959360_k6[g][i]);
		bf_probe_positions(hash, (uint64_t) 1 << 33, 16, BLOOM_HASH_XXH3_BLOCKED, positions);
		for (int i = 0; i < 16; i++)
			CHECK_U64(positions[i], golden_blocked_2_33_k16[g][i]);
	}
}

/*
 * bf_block_set, bf_block_test, bf_add and bf_contains agree with
 * bf_probe_positions for random hashes and every k; all probes of a value
 * stay in one block; the adder, pipelined or not, on an aligned or a
 * misaligned array, sets the same bits.
 */
UNIT_TEST(blocked_probes)
{
	static bf_adder adder;
	bool		probes_ok = true;
	bool		adder_ok = true;

	for (int trial = 0; trial < 2000; trial++)
	{
		bf_hash		hash = {rng_next(), rng_next()};
		uint64_t	m = BLOOM_BLOCK_BITS * (1 + rng_next() % (trial % 2 ? 3000 : 4));
		uint32_t	k = 1 + (uint32_t) (trial % BLOOM_K_MAX);
		uint64_t	positions[BLOOM_K_MAX];
		size_t		nbytes = (size_t) bloom_payload_bytes(m);
		uint8_t    *bits = xmalloc(nbytes);
		uint8_t    *expected = xmalloc(nbytes);

		memset(bits, 0, nbytes);
		memset(expected, 0, nbytes);
		bf_probe_positions(hash, m, k, BLOOM_HASH_XXH3_BLOCKED, positions);
		for (uint32_t i = 0; i < k; i++)
		{
			probes_ok &= positions[i] < m;
			probes_ok &= positions[i] / BLOOM_BLOCK_BITS == positions[0] / BLOOM_BLOCK_BITS;
			naive_set_bit(expected, positions[i]);
		}
		probes_ok &= !bf_contains(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash);
		bf_add(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash);
		probes_ok &= memcmp(bits, expected, nbytes) == 0;
		probes_ok &= bf_contains(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash);
		/* clearing any one of its bits makes the value absent */
		{
			uint64_t	drop = positions[rng_next() % k];

			bits[drop / 8] &= (uint8_t) ~(1u << (drop % 8));
			probes_ok &= !bf_contains(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash);
		}
		free(bits);
		free(expected);
	}
	CHECK(probes_ok);

	for (int trial = 0; trial < 40; trial++)
	{
		uint64_t	m = BLOOM_BLOCK_BITS * (1 + rng_next() % (trial < 4 ? 40000 : 300));
		uint32_t	k = 1 + (uint32_t) (rng_next() % 20);
		int			values = (int) (rng_next() % (3 * BF_ADDER_DEPTH + 2)) + (trial < 4 ? 100000 : 0);
		size_t		nbytes = (size_t) bloom_payload_bytes(m);
		size_t		offset = (size_t) (trial % 4) * 16;	/* 0, 16, 32, 48 */
		uint8_t    *chunk = xmalloc(nbytes + 64);
		uint8_t    *bits = chunk + offset;
		uint8_t    *expected = xmalloc(nbytes);

		memset(bits, 0, nbytes);
		memset(expected, 0, nbytes);
		bf_adder_init(&adder, bits, m, k, BLOOM_HASH_XXH3_BLOCKED);
		adder.pipelined = trial % 3 != 0;
		for (int round = 0; round < 2; round++)
		{
			for (int v = 0; v < values; v++)
			{
				bf_hash		hash = {rng_next(), rng_next()};

				bf_add(expected, m, k, BLOOM_HASH_XXH3_BLOCKED, hash);
				bf_adder_add(&adder, hash);
			}
			bf_adder_flush(&adder);
			adder_ok &= adder.pending == 0;
			adder_ok &= memcmp(bits, expected, nbytes) == 0;
		}
		free(chunk);
		free(expected);
	}
	CHECK(adder_ok);
}

/*
 * Golden filters: the same values give the same bytes on every machine,
 * little- or big-endian, whether bf_add sets the bits or the pipelined
 * adder does.  Each digest is XXH3-64 of the bit array, computed on x86-64.
 */
UNIT_TEST(golden_filters)
{
	const uint64_t m = 958506;
	uint8_t    *a;

	/* scheme 1 and scheme 2, added one at a time and through the adder */
	a = build_filter(m, 7, BLOOM_HASH_XXH3_EDH, 0, 100000, false);
	CHECK_U64(bits_digest(a, m), UINT64_C(0xc1c20c6555192da6));
	free(a);
	a = build_filter(m, 7, BLOOM_HASH_XXH3_EDH, 0, 100000, true);
	CHECK_U64(bits_digest(a, m), UINT64_C(0xc1c20c6555192da6));
	free(a);
	a = build_filter(989696, 6, BLOOM_HASH_XXH3_BLOCKED, 0, 100000, false);
	CHECK_U64(bits_digest(a, 989696), UINT64_C(0x9e49b7e901135091));
	free(a);
	a = build_filter(989696, 6, BLOOM_HASH_XXH3_BLOCKED, 0, 100000, true);
	CHECK_U64(bits_digest(a, 989696), UINT64_C(0x9e49b7e901135091));
	free(a);
}
/*
 * Every path that walks a value's probes agrees with bf_probe_positions, on
 * random shapes of both schemes: the two iterators; bf_add and the scheme's
 * own add (bf_add_hash, bf_block_set); bf_contains, the branch-free test
 * the executor and the planner share, and the scheme's own (bf_contains_hash,
 * bf_block_test); the adder, pipelined and direct.  bf_probe_positions is
 * in turn held to the formulas written out here (core/probe.h).  contains
 * must read every probe: with all bits set but one of the value's, it says
 * absent.
 */
static uint64_t
reference_position(bf_hash hash, uint64_t m, uint8_t scheme, uint64_t i)
{
	if (scheme == BLOOM_HASH_XXH3_BLOCKED)
	{
		uint64_t	j = i / 7;
		uint64_t	w = hash.h2;

		if (j > 0)
		{
			w = hash.h2 + j * UINT64_C(0x9e3779b97f4a7c15);
			w = (w ^ (w >> 33)) * UINT64_C(0xff51afd7ed558ccd);
			w = (w ^ (w >> 33)) * UINT64_C(0xc4ceb9fe1a85ec53);
			w ^= w >> 33;
		}
		return bf_reduce(hash.h1, m / BLOOM_BLOCK_BITS) * BLOOM_BLOCK_BITS +
			((w >> (9 * (i % 7))) & 511);
	}
	return bf_reduce(hash.h1 + i * hash.h2 + (i * i * i - i) / 6, m);
}


UNIT_TEST(probe_paths)
{
	static bf_adder adder;
	bool		reference_ok = true;
	bool		iterator_ok = true;
	bool		add_ok = true;
	bool		contains_ok = true;
	bool		adder_ok = true;

	for (int trial = 0; trial < 4000; trial++)
	{
		uint8_t		scheme = trial % 2 ? BLOOM_HASH_XXH3_BLOCKED : BLOOM_HASH_XXH3_EDH;
		uint64_t	m = scheme == BLOOM_HASH_XXH3_BLOCKED ?
			BLOOM_BLOCK_BITS * (1 + rng_next() % (trial % 3 ? 8 : 9000)) :
			1 + rng_next() % (trial % 3 ? 700 : 5000000);
		uint32_t	k = 1 + (uint32_t) (rng_next() % BLOOM_K_MAX);
		bf_hash		hash = {rng_next(), rng_next()};
		uint64_t	positions[BLOOM_K_MAX];
		uint64_t	walked[BLOOM_K_MAX];
		uint32_t	count = 0;
		size_t		nbytes = (size_t) bloom_payload_bytes(m);
		uint8_t    *expected = xmalloc(nbytes);
		uint8_t    *bits = xmalloc(nbytes);

		if (trial < 4)
			hash.h2 = 0;
		bf_probe_positions(hash, m, k, scheme, positions);
		memset(expected, 0, nbytes);
		for (uint32_t i = 0; i < k; i++)
		{
			reference_ok &= positions[i] == reference_position(hash, m, scheme, i);
			reference_ok &= positions[i] < m;
			naive_set_bit(expected, positions[i]);
		}

		/* the scheme's iterator, as the add and contains paths walk it */
		if (scheme == BLOOM_HASH_XXH3_BLOCKED)
		{
			uint64_t	first = bf_block_offset(hash.h1, m) * 8;
			bf_blocked_probe probe;

			bf_blocked_probe_init(&probe, hash.h2, k);
			do
			{
				uint32_t	n;
				uint64_t	w = bf_blocked_probe_word(&probe, &n);

				iterator_ok &= n >= 1 && n <= 7;
				for (; n > 0 && count < BLOOM_K_MAX; n--, w >>= 9)
					walked[count++] = first + (w & 511);
			} while (count < BLOOM_K_MAX && bf_blocked_probe_next(&probe));
		}
		else
		{
			bf_edh_probe probe;
			uint64_t	position;

			bf_edh_probe_init(&probe, hash, m, k);
			while (count < BLOOM_K_MAX && bf_edh_probe_next(&probe, &position))
				walked[count++] = position;
		}
		iterator_ok &= count == k && memcmp(walked, positions, k * sizeof(uint64_t)) == 0;

		/* add: bf_add and the scheme's own */
		memset(bits, 0, nbytes);
		contains_ok &= !bf_contains(bits, m, k, scheme, hash);
		bf_add(bits, m, k, scheme, hash);
		add_ok &= memcmp(bits, expected, nbytes) == 0;
		memset(bits, 0, nbytes);
		if (scheme == BLOOM_HASH_XXH3_BLOCKED)
			bf_block_set(bits + bf_block_offset(hash.h1, m), k, hash.h2);
		else
			bf_add_hash(bits, m, k, hash);
		add_ok &= memcmp(bits, expected, nbytes) == 0;

		/* contains: exactly the value's bits, then all bits but one of them */
		contains_ok &= bf_contains(expected, m, k, scheme, hash);
		contains_ok &= scheme == BLOOM_HASH_XXH3_BLOCKED ?
			bf_block_test(expected + bf_block_offset(hash.h1, m), k, hash.h2) :
			bf_contains_hash(expected, m, k, hash);
		{
			uint64_t	drop = positions[rng_next() % k];

			memset(bits, 0xff, nbytes);
			bits[drop / 8] &= (uint8_t) ~(1u << (drop % 8));
			contains_ok &= !bf_contains(bits, m, k, scheme, hash);
			contains_ok &= scheme == BLOOM_HASH_XXH3_BLOCKED ?
				!bf_block_test(bits + bf_block_offset(hash.h1, m), k, hash.h2) :
				!bf_contains_hash(bits, m, k, hash);
		}

		/* the adder, pipelined and direct */
		for (int pipelined = 0; pipelined < 2; pipelined++)
		{
			memset(bits, 0, nbytes);
			bf_adder_init(&adder, bits, m, k, scheme);
			adder.pipelined = pipelined;
			bf_adder_add(&adder, hash);
			bf_adder_flush(&adder);
			adder_ok &= memcmp(bits, expected, nbytes) == 0;
		}
		free(expected);
		free(bits);
	}
	CHECK(reference_ok);
	CHECK(iterator_ok);
	CHECK(add_ok);
	CHECK(contains_ok);
	CHECK(adder_ok);
}
