/*
 * test_autosize.c: unit tests of the self-sizing filters (bloom_agg without
 * a capacity): the shape at p, folds, the hash set of the exact phase, the
 * exact choice, the ladder, the sketch, and the golden shapes, folds and
 * filters every machine must give.
 */
#include "harness.h"

#include "core/autosize.h"

/* hashes of the int8 values first .. first + n - 1 */
static void
add_range(uint8_t *bits, uint64_t m, uint32_t k, int64_t first, int64_t n)
{
	for (int64_t key = first; key < first + n; key++)
		bf_add_hash(bits, m, k, hash_int64(key));
}

UNIT_TEST(auto_shape)
{
	static const double rates[] = {0.9, 0.7, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01,
	0.005, 0.001, 1e-4, 1e-6, 1e-10, 1e-19, 0x1p-6, 0.0110485434560398, 0x1p-64};

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
	{
		uint32_t	k,
					optimal_k;
		uint64_t	sketch_m,
					m;
		double		bound = bf_auto_rate_bound(rates[i]);
		double		bits_per_value;

		CHECK_STATUS(bf_auto_shape(rates[i], &k, &sketch_m), BF_OK);
		/* the k bloom_empty(p, n) gives for large n (m may be too large) */
		(void) bf_optimal_shape(rates[i], 1000000000, &m, &optimal_k);
		CHECK_U64(k, optimal_k);
		/*
		 * M = 15 * 2^J, with 5 * 2^J enough for 10^7 values and 2.5 * 2^J
		 * not, to 1e-12 (bf_auto_shape decides it in bf_real; this recomputes
		 * it in double)
		 */
		bits_per_value = -(double) k / log1p(-pow(bound, 1.0 / k));
		CHECK(sketch_m % 15 == 0 && ((sketch_m / 15) & (sketch_m / 15 - 1)) == 0);
		CHECK(sketch_m / 3 >= bits_per_value * 1e7 * (1 - 1e-12) &&
			  sketch_m / 6 < bits_per_value * 1e7 * (1 + 1e-12));
		CHECK(sketch_m % 64 == 0 && sketch_m <= BLOOM_M_MAX && sketch_m / 8 < 0x3fffffff);
		/* the margin: at most 10% (to 1e-15), and 3 standard deviations at 100000 draws */
		CHECK(bound < rates[i] && bound >= 0.9 * rates[i] * (1 - 1e-15));
	}
	{
		uint32_t	k;
		uint64_t	sketch_m;

		CHECK_STATUS(bf_auto_shape(0.01, &k, &sketch_m), BF_OK);
		CHECK_U64(k, 7);
		CHECK_U64(sketch_m, 15 * (UINT64_C(1) << 25));
		CHECK_STATUS(bf_auto_shape(0.0, &k, &sketch_m), BF_FALSE_POSITIVE_RATE_RANGE);
		CHECK_STATUS(bf_auto_shape(1.0, &k, &sketch_m), BF_FALSE_POSITIVE_RATE_RANGE);
		CHECK_STATUS(bf_auto_shape(NAN, &k, &sketch_m), BF_FALSE_POSITIVE_RATE_RANGE);
		CHECK_STATUS(bf_auto_shape(1e-25, &k, &sketch_m), BF_K_RANGE);
		CHECK_U64(k, 83);
	}
}

/*
 * Folding a filter of m bits by f gives exactly the filter built at m / f,
 * for powers of two (within a word and across words), odd factors, their
 * products, odd factors above 63 (bit by bit), and sizes that are not whole
 * words.
 */
UNIT_TEST(fold)
{
	static const struct
	{
		uint64_t	dst_m;
		uint64_t	factor;
	}			cases[] = {
		{64, 2}, {1000, 2}, {37, 2}, {1, 2}, {640, 4}, {320, 64}, {100, 128},
		{64, 512}, {999, 3}, {192, 5}, {128, 15}, {61, 15}, {500, 30},
		{300, 15 * 256}, {77, 67}, {64, 67 * 4}, {4096, 1}, {5000, 7},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		uint64_t	dst_m = cases[i].dst_m;
		uint64_t	src_m = dst_m * cases[i].factor;
		size_t		src_bytes = (size_t) bloom_payload_bytes(src_m);
		size_t		dst_bytes = (size_t) bloom_payload_bytes(dst_m);
		uint8_t    *src = xmalloc(src_bytes);
		uint8_t    *direct = xmalloc(dst_bytes);
		uint8_t    *folded = xmalloc(dst_bytes);
		int64_t		n = (int64_t) (dst_m / 10 + 1);

		memset(src, 0, src_bytes);
		memset(direct, 0, dst_bytes);
		memset(folded, 0xa5, dst_bytes);
		add_range(src, src_m, 7, 1000 * (int64_t) i, n);
		add_range(direct, dst_m, 7, 1000 * (int64_t) i, n);
		bf_fold(src, src_m, folded, dst_m);
		if (!CHECK(memcmp(folded, direct, dst_bytes) == 0))
			fprintf(stderr, "    fold of m = %" PRIu64 " by %" PRIu64 "\n", src_m, cases[i].factor);
		CHECK_U64(bf_fold_popcount(src, src_m, dst_m), bf_popcount(direct, dst_bytes));
		CHECK_STATUS(bf_check_bits(&(BloomHeader) {1, 1, 7, 0, dst_m}, folded, dst_bytes), BF_OK);
		free(src);
		free(direct);
		free(folded);
	}
}

UNIT_TEST(hashset)
{
	bf_hashset	set = {NULL, 8, 0, false};
	bf_hashset_iter iter = {0, false};
	bf_hash		hash;
	bf_hash		zero = {0, 0};
	uint64_t	seen = 0;
	bool		all_new = true;

	set.slots = calloc(set.capacity, sizeof(bf_hash));
	for (int round = 0; round < 2; round++)
		for (int64_t key = 0; key < 5000; key++)
		{
			bool		added;

			if (bf_hashset_full(&set))
			{
				bf_hashset	bigger = {NULL, set.capacity * 2, 0, false};

				bigger.slots = calloc(bigger.capacity, sizeof(bf_hash));
				bf_hashset_move(&set, &bigger);
				CHECK_U64(bigger.count, set.count);
				free(set.slots);
				set = bigger;
			}
			added = bf_hashset_add(&set, hash_int64(key));
			if (added != (round == 0))
				all_new = false;
		}
	CHECK(all_new);
	CHECK_U64(set.count, 5000);
	CHECK(set.capacity == 8192);
	CHECK(bf_hashset_add(&set, zero));
	CHECK(!bf_hashset_add(&set, zero));
	CHECK_U64(set.count, 5001);
	while (bf_hashset_next(&set, &iter, &hash))
		seen++;
	CHECK_U64(seen, 5001);
	free(set.slots);
}

/* a set of the int8 values first .. first + n - 1, added in the given order */
static bf_hashset
make_set(int64_t first, int64_t n, bool descending)
{
	bf_hashset	set = {NULL, 16, 0, false};

	while ((uint64_t) n * 4 >= set.capacity * 3)
		set.capacity *= 2;
	set.slots = calloc(set.capacity, sizeof(bf_hash));
	for (int64_t i = 0; i < n; i++)
		bf_hashset_add(&set, hash_int64(descending ? first + n - 1 - i : first + i));
	return set;
}

/* Measured rate over absent values 10^9 + i, i < trials. */
static double
measured_rate(const uint8_t *bits, uint64_t m, uint32_t k, int64_t trials)
{
	int64_t		hits = 0;

	for (int64_t i = 0; i < trials; i++)
		hits += bf_contains_hash(bits, m, k, hash_int64(1000000000 + i));
	return (double) hits / (double) trials;
}

UNIT_TEST(auto_exact)
{
	static const int64_t sizes[] = {0, 1, 2, 3, 5, 10, 30, 100, 1000, 10000, 100000};
	static const double rates[] = {0.01, 0.1, 0.001, 0.5};

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		{
			double		p = rates[r];
			int64_t		n = sizes[i];
			uint32_t	k;
			uint64_t	sketch_m,
						optimal_m,
						m,
						m_again;
			uint32_t	optimal_k;
			bf_hashset	set = make_set(1, n, false);
			bf_hashset	reversed = make_set(1, n, true);
			uint64_t	max_m;
			uint8_t    *bits,
					   *again,
					   *direct;
			size_t		nbytes;

			bf_auto_shape(p, &k, &sketch_m);
			bf_optimal_shape(p, n > 0 ? n : 1, &optimal_m, &optimal_k);
			max_m = bf_auto_exact_max_m((uint64_t) n, p, k, sketch_m);
			bits = xmalloc((size_t) bloom_payload_bytes(max_m));
			again = xmalloc((size_t) bloom_payload_bytes(max_m));
			m = bf_auto_choose_exact(&set, p, k, max_m, bits);
			m_again = bf_auto_choose_exact(&reversed, p, k, max_m, again);
			nbytes = (size_t) bloom_payload_bytes(m);
			direct = xmalloc(nbytes);
			memset(direct, 0, nbytes);
			add_range(direct, m, k, 1, n);

			/* an ordinary filter of the values, whatever the order */
			CHECK(m <= max_m && memcmp(bits, direct, nbytes) == 0);
			CHECK(m == m_again && memcmp(bits, again, nbytes) == 0);
			/*
			 * Within 1.5 times the optimal m from 30 values on.  Below,
			 * double hashing's coinciding probes need more bits than the
			 * formula gives (whose filter does not hold the target there:
			 * 1 value in 10 bits at p = 0.01 lets 9% through).
			 */
			CHECK(m >= optimal_m);
			if (n >= 30 && !CHECK(m <= 1.5 * optimal_m))
				fprintf(stderr, "    p = %g, n = %" PRId64 ": m = %" PRIu64 ", optimal %" PRIu64 "\n",
						p, n, m, optimal_m);
			CHECK(bf_auto_holds(m, k, bf_popcount(bits, nbytes), p));
			/* the measured rate over 10^6 absent values, against p itself */
			if (p == 0.01 && (n <= 5 || n == 1000))
			{
				double		rate = measured_rate(bits, m, k, 1000000);

				printf("self-sized, p = 0.01, n = %" PRId64 ": m = %" PRIu64 " (optimal %" PRIu64 "), rate over 10^6 absent values %.5f\n",
					   n, m, optimal_m, rate);
				CHECK(rate <= p);
			}
			free(bits);
			free(again);
			free(direct);
			free(set.slots);
			free(reversed.slots);
		}
}

/* The ladder of a sketch of 15 * 2^10 bits: its divisors, at most 4/3 apart below M / 3. */
UNIT_TEST(auto_ladder)
{
	const uint64_t sketch_m = 15 * 1024;
	uint64_t	previous = bf_auto_ladder_next(sketch_m, 0);
	uint64_t	count = 1;

	CHECK_U64(previous, 1);
	for (uint64_t m = bf_auto_ladder_next(sketch_m, previous); m != 0;
		 m = bf_auto_ladder_next(sketch_m, m))
	{
		CHECK(sketch_m % m == 0 && m > previous);
		if (m <= sketch_m / 3 && previous >= 4)
			CHECK(m * 3 <= previous * 4);
		previous = m;
		count++;
	}
	CHECK_U64(previous, sketch_m);
	/* 2^0..2^10 times 1, 3, 5, 15 */
	CHECK_U64(count, 44);
	CHECK_U64(bf_auto_ladder_next(sketch_m, 5120), 7680);
	CHECK_U64(bf_auto_ladder_next(sketch_m, 7680), 15360);
	CHECK_U64(bf_auto_ladder_next(sketch_m, 15360), 0);
	CHECK_U64(bf_auto_ladder_next(sketch_m, 1000), 1024);
}

/*
 * bf_fold_room for the tests: fresh memory for each candidate, filled with
 * a pattern that bf_fold must overwrite; the last one is kept.
 */
typedef struct test_room
{
	uint8_t    *bits;
	int			calls;
} test_room;

static uint8_t *
test_room_get(uint64_t m, void *arg)
{
	test_room  *room = (test_room *) arg;
	size_t		nbytes = (size_t) bloom_payload_bytes(m);

	free(room->bits);
	room->bits = xmalloc(nbytes);
	memset(room->bits, 0xa5, nbytes);
	room->calls++;
	return room->bits;
}

/*
 * The sketch phase with a small sketch (M = 15 * 2^12 bits at p = 0.01,
 * k = 7): the chosen size is the filter built directly, within 1.5 times
 * optimal while it is at most M / 3; between M / 3 and M the target still
 * holds; past M (about 6270 values) there is no size, and the SQL layer
 * raises its error.
 */
UNIT_TEST(auto_sketch)
{
	static const int64_t sizes[] = {200, 1000, 2000, 4000, 5000, 6000, 7000, 20000};
	const uint64_t sketch_m = 15 * 4096;
	const double p = 0.01;
	const uint32_t k = 7;
	size_t		sketch_bytes = (size_t) bloom_payload_bytes(sketch_m);
	uint8_t    *sketch = xmalloc(sketch_bytes);
	test_room	room = {NULL, 0};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		int64_t		n = sizes[i];
		uint64_t	m,
					optimal_m;
		uint32_t	optimal_k;

		memset(sketch, 0, sketch_bytes);
		add_range(sketch, sketch_m, k, 1, n);
		/* duplicates change nothing */
		add_range(sketch, sketch_m, k, 1, n / 2);
		m = bf_auto_choose_sketch(sketch, sketch_m, k, p);
		/* building as it searches chooses the same size, folded alike */
		room.calls = 0;
		CHECK_U64(bf_auto_fold_sketch(sketch, sketch_m, k, p, test_room_get, &room), m);
		bf_optimal_shape(p, n, &optimal_m, &optimal_k);
		if (n > 6500)
		{
			CHECK_U64(m, 0);
			continue;
		}
		if (!CHECK(m != 0) || !CHECK(room.calls >= 1))
			continue;
		{
			size_t		nbytes = (size_t) bloom_payload_bytes(m);
			uint8_t    *direct = xmalloc(nbytes);
			uint8_t    *folded = xmalloc(nbytes);

			memset(direct, 0, nbytes);
			add_range(direct, m, k, 1, n);
			bf_fold(sketch, sketch_m, folded, m);
			CHECK(memcmp(direct, folded, nbytes) == 0);
			CHECK(memcmp(direct, room.bits, nbytes) == 0);
			CHECK(bf_auto_holds(m, k, bf_popcount(direct, nbytes), p));
			if (optimal_m * 1.03 <= sketch_m / 3)
				CHECK(m <= 1.5 * optimal_m);
			else
				CHECK(m == sketch_m / 2 || m == sketch_m || m <= 1.5 * optimal_m);
			/* the size below it misses the target (where it is on the ladder) */
			free(direct);
			free(folded);
		}
	}
	free(room.bits);
	free(sketch);
}

/*
 * Golden self-sized shapes: the k and sketch size of self-sized filters at
 * p, decided in bf_real, so they must hold on every machine.  The last rows
 * are rates where log2(1/p) is within about 1e-16 of a half-integer (the
 * doubles nearest 2^-6.5, 2^-9.5 and 2^-13.5, and the next ones), where
 * double arithmetic gives different answers on different machines and C
 * libraries.
 */
UNIT_TEST(golden_auto_shapes)
{
	static const struct
	{
		double		p;
		uint32_t	k;
		uint64_t	sketch_m;
	}			auto_shapes[] = {
		{0.9, 1, 15728640},
		{0.5, 1, 62914560},
		{0.1, 3, 251658240},
		{0.01, 7, 503316480},
		{0x1p-6, 6, 503316480},
		{0.001, 10, 503316480},
		{1e-6, 20, 1006632960},
		{1e-19, 63, 4026531840},
		{0x1p-64, 64, 4026531840},
		/* near a boundary: the doubles nearest 2^-6.5, 2^-9.5, 2^-13.5 and next */
		{0.011048543456039806, 6, 503316480},
		{0.011048543456039804, 7, 503316480},
		{0.0013810679320049757, 9, 503316480},
		{8.631674575031098e-05, 13, 1006632960},
		{8.631674575031097e-05, 14, 1006632960},
	};

	for (size_t i = 0; i < sizeof(auto_shapes) / sizeof(auto_shapes[0]); i++)
	{
		uint32_t	k;
		uint64_t	sketch_m;

		CHECK_STATUS(bf_auto_shape(auto_shapes[i].p, &k, &sketch_m), BF_OK);
		if (!CHECK(k == auto_shapes[i].k && sketch_m == auto_shapes[i].sketch_m))
			fprintf(stderr, "    p = %.17g: k = %u, sketch m = %" PRIu64 "\n",
					auto_shapes[i].p, k, sketch_m);
	}
}

/*
 * Golden folds: a filter of 15 * 2^16 bits folded by each factor gives the
 * same bytes on every machine.  Each digest is XXH3-64 of the bit array,
 * computed on x86-64.
 */
UNIT_TEST(golden_folds)
{
	static const struct
	{
		uint64_t	factor;
		uint64_t	digest;
		uint64_t	popcount;
	}			folds[] = {
		{1, UINT64_C(0x660311e980978d09), 294352},
		{2, UINT64_C(0x88439b313edd7baf), 250326},
		{3, UINT64_C(0xb3c40ab17c759ce5), 215131},
		{5, UINT64_C(0x204cdec5d6835b4d), 163372},
		{15, UINT64_C(0x0b802660dba51447), 65230},
		{16, UINT64_C(0x45a8c9811e7bbdfd), 61224},
		{240, UINT64_C(0xde679a2671a7d37a), 4096},
		{960, UINT64_C(0xda3383e7b4ff3ccd), 1024},
		{1920, UINT64_C(0x7992ee0288330c4f), 512},
	};
	const uint64_t src_m = 15 * 65536;
	uint8_t    *a,
			   *b;

	a = build_filter(src_m, 7, BLOOM_HASH_XXH3_EDH, 0, 50000, false);
	for (size_t i = 0; i < sizeof(folds) / sizeof(folds[0]); i++)
	{
		uint64_t	dst_m = src_m / folds[i].factor;

		b = xmalloc((size_t) bloom_payload_bytes(dst_m));
		bf_fold(a, src_m, b, dst_m);
		CHECK_U64(bits_digest(b, dst_m), folds[i].digest);
		CHECK_U64(bf_fold_popcount(a, src_m, dst_m), folds[i].popcount);
		free(b);
	}
	free(a);
}

/*
 * Golden self-sized filters: the exact phase at three rates chooses the same
 * m and sets the same bits on every machine, and so does a (small) sketch
 * folded.  Each digest is XXH3-64 of the bit array, computed on x86-64.
 */
UNIT_TEST(golden_self_sized)
{
	static const struct
	{
		double		p;
		int64_t		n;
		uint64_t	m;
		uint64_t	digest;
	}			exact[] = {
		{0.01, 1, 28, UINT64_C(0x65b4407d70645868)},
		{0.01, 1000, 9834, UINT64_C(0x3e7c7dd0e3744192)},
		{0.01, 100000, 979574, UINT64_C(0x894543ea6df4ba7c)},
		{0.1, 1, 11, UINT64_C(0xb85e8cfbbbefee1a)},
		{0.1, 1000, 4988, UINT64_C(0xb16813f8d9ca644c)},
		{0.1, 100000, 487582, UINT64_C(0xb83f4000852dcdac)},
		{0.001, 1, 80, UINT64_C(0x9e8f91cb7492c886)},
		{0.001, 1000, 14699, UINT64_C(0xe034d19c2f272efb)},
		{0.001, 100000, 1465884, UINT64_C(0x3d5571afd2c5131f)},
	};
	const uint64_t sketch_m = 15 * 4096;
	uint64_t	chosen;
	uint8_t    *a,
			   *b;

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
	{
		uint32_t	k;
		uint64_t	limit_m,
					max_m;
		bf_hashset	set = make_set(1, exact[i].n, false);

		bf_auto_shape(exact[i].p, &k, &limit_m);
		max_m = bf_auto_exact_max_m((uint64_t) exact[i].n, exact[i].p, k, limit_m);
		a = xmalloc((size_t) bloom_payload_bytes(max_m));
		chosen = bf_auto_choose_exact(&set, exact[i].p, k, max_m, a);
		CHECK_U64(chosen, exact[i].m);
		CHECK_U64(bits_digest(a, chosen), exact[i].digest);
		free(a);
		free(set.slots);
	}
	a = build_filter(sketch_m, 7, BLOOM_HASH_XXH3_EDH, 1, 3000, false);
	chosen = bf_auto_choose_sketch(a, sketch_m, 7, 0.01);
	CHECK_U64(chosen, 30720);
	b = xmalloc((size_t) bloom_payload_bytes(chosen));
	bf_fold(a, sketch_m, b, chosen);
	CHECK_U64(bits_digest(b, chosen), UINT64_C(0x62560bda7b98b921));
	free(a);
	free(b);
}
