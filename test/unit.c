/*
 * unit.c: unit tests for the bloom filter core (src/core_*.c).
 *
 * Plain C, no server.  Each CHECK is one case; the last line printed is
 * "N passed, M failed" and the exit status is non-zero on any failure.
 * Build and run with `make unitcheck` (see test/unit.mk), or under
 * AddressSanitizer and UBSan with `make unitcheck-sanitize`.
 *
 * Inputs to the decoders are copied into buffers of exactly their length, so
 * that under the sanitizers a read one byte past the end is an error.
 *
 * The golden hash values were computed independently of this code: h1/h2
 * with Debian's xxhsum -H2 (XXH128, printed big-endian, high 64 bits first),
 * the probe positions from h1/h2 in python3 with big integers, the text
 * forms with python3's base64 module.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "core_autosize.h"
#include "core_real.h"

static int	passed;
static int	failed;

static bool
check(bool ok, const char *what, const char *file, int line)
{
	if (ok)
		passed++;
	else
	{
		failed++;
		fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
	}
	return ok;
}

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)

#define CHECK_U64(actual, expected) \
	do { \
		uint64_t	a_ = (actual), e_ = (expected); \
		if (!check(a_ == e_, #actual " == " #expected, __FILE__, __LINE__)) \
			fprintf(stderr, "    got %" PRIu64 ", expected %" PRIu64 "\n", a_, e_); \
	} while (0)

static const char *
status_name(bf_status status)
{
	static const char *const names[] = {
		"BF_OK", "BF_FALSE_POSITIVE_RATE_RANGE", "BF_CAPACITY_RANGE",
		"BF_M_RANGE", "BF_K_RANGE", "BF_TOO_LARGE", "BF_FORMAT_VERSION",
		"BF_HASH_SCHEME", "BF_FLAGS", "BF_LENGTH", "BF_PADDING_BITS",
		"BF_BLOCK_SHAPE", "BF_SYNTAX", "BF_BASE64"
	};

	if ((unsigned) status < sizeof(names) / sizeof(names[0]))
		return names[status];
	return "(unknown status)";
}

#define CHECK_STATUS(actual, expected) \
	check_status((actual), (expected), #actual, __FILE__, __LINE__)

static void
check_status(bf_status actual, bf_status expected, const char *what,
			 const char *file, int line)
{
	if (!check(actual == expected, what, file, line))
		fprintf(stderr, "    got %s, expected %s\n",
				status_name(actual), status_name(expected));
}

/* splitmix64: a fixed, portable sequence for test data */
static uint64_t rng_state = 0x9e3779b97f4a7c15;

static uint64_t
rng_next(void)
{
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
	return z ^ (z >> 31);
}

static void
rng_fill(uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t) rng_next();
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n > 0 ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* A copy of data in a buffer of exactly len bytes. */
static void *
exact_copy(const void *data, size_t len)
{
	void	   *p = xmalloc(len);

	if (len > 0)
		memcpy(p, data, len);
	return p;
}

static bf_hash
hash_int64(int64_t value)
{
	uint8_t		bytes[8];

	/* canonical bytes of an int8: little-endian, as in the golden vectors */
	for (int i = 0; i < 8; i++)
		bytes[i] = (uint8_t) ((uint64_t) value >> (8 * i));
	return bf_hash_bytes(bytes, sizeof(bytes));
}

/* field by field: the struct has padding bytes */
static bool
header_equal(const BloomHeader *a, const BloomHeader *b)
{
	return a->format_version == b->format_version &&
		a->hash_scheme == b->hash_scheme && a->k == b->k &&
		a->flags == b->flags && a->m == b->m;
}

static bool
naive_test_bit(const uint8_t *bits, uint64_t i)
{
	return (bits[i / 8] >> (i % 8)) & 1;
}

static void
naive_set_bit(uint8_t *bits, uint64_t i)
{
	bits[i / 8] |= (uint8_t) (1 << (i % 8));
}

/* ---- status messages ---- */

static void
test_status_messages(void)
{
	for (int s = BF_OK; s <= BF_BASE64; s++)
	{
		const char *message = bf_status_message((bf_status) s);
		size_t		len = strlen(message);

		/* a full sentence for errdetail: capital letter, final period */
		CHECK(len > 10 && message[0] >= 'A' && message[0] <= 'Z' &&
			  message[len - 1] == '.');
		for (int t = BF_OK; t < s; t++)
			CHECK(strcmp(message, bf_status_message((bf_status) t)) != 0);
	}
}

/* ---- shapes ---- */

static void
test_optimal_shape(void)
{
	static const struct
	{
		double		p;
		int64_t		n;
		bf_status	status;
		uint64_t	m;
		uint32_t	k;
	}			cases[] = {
		{0.01, 100000, BF_OK, 958506, 7},
		{0.5, 1, BF_OK, 2, 1},
		{0.999999, 1, BF_OK, 1, 1},
		{1e-19, 1, BF_OK, 92, 64},	/* bloom_pg.c's hint: 1e-19 must work */
		{0x1p-64, 1, BF_OK, 93, 64},
		{1e-19, 1000000, BF_OK, 91058055, 63},
		{0.01, 896000000, BF_OK, 8588212307, 7},	/* just below BLOOM_M_MAX */
		{0.01, 1000000000, BF_TOO_LARGE, 9585058378, 7},
		{0.01, INT64_MAX, BF_TOO_LARGE, UINT64_MAX, 7},	/* m saturates */
		{1e-30, 1, BF_K_RANGE, 144, 100},
		{1e-30, INT64_MAX, BF_K_RANGE, UINT64_MAX, 100},	/* k first */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		uint64_t	m;
		uint32_t	k;

		CHECK_STATUS(bf_optimal_shape(cases[i].p, cases[i].n, &m, &k), cases[i].status);
		CHECK_U64(m, cases[i].m);
		CHECK_U64(k, cases[i].k);
	}

	/* out-of-range arguments */
	{
		static const double bad_p[] = {0.0, -0.0, 1.0, -0.1, 1.5, NAN, INFINITY, -INFINITY};
		static const int64_t bad_n[] = {0, -1, INT64_MIN};
		uint64_t	m;
		uint32_t	k;

		for (size_t i = 0; i < sizeof(bad_p) / sizeof(bad_p[0]); i++)
			CHECK_STATUS(bf_optimal_shape(bad_p[i], 100, &m, &k), BF_FALSE_POSITIVE_RATE_RANGE);
		for (size_t i = 0; i < sizeof(bad_n) / sizeof(bad_n[0]); i++)
			CHECK_STATUS(bf_optimal_shape(0.01, bad_n[i], &m, &k), BF_CAPACITY_RANGE);
		/* the smallest positive double needs about 1075 probes */
		CHECK_STATUS(bf_optimal_shape(4.9406564584124654e-324, 1, &m, &k), BF_K_RANGE);
		CHECK(k > 1000 && k < 1100);
	}

	/* the optimal shape always passes bf_check_shape */
	for (int64_t n = 1; n <= 1000000; n *= 10)
		for (double p = 0.9; p > 1e-19; p /= 7)
		{
			uint64_t	m;
			uint32_t	k;

			CHECK_STATUS(bf_optimal_shape(p, n, &m, &k), BF_OK);
			CHECK_STATUS(bf_check_shape((int64_t) m, k), BF_OK);
		}
}

static void
test_check_shape(void)
{
	static const struct
	{
		int64_t		m;
		int64_t		k;
		bf_status	status;
	}			cases[] = {
		{1, 1, BF_OK},
		{958506, 7, BF_OK},
		{(int64_t) BLOOM_M_MAX, 64, BF_OK},
		{0, 1, BF_M_RANGE},
		{-5, 1, BF_M_RANGE},
		{INT64_MIN, 1, BF_M_RANGE},
		{(int64_t) BLOOM_M_MAX + 1, 1, BF_TOO_LARGE},
		{INT64_MAX, 1, BF_TOO_LARGE},
		{10, 0, BF_K_RANGE},
		{10, -1, BF_K_RANGE},
		{10, 65, BF_K_RANGE},
		{10, INT64_MAX, BF_K_RANGE},
		{10, INT64_MIN, BF_K_RANGE},
	};

	CHECK_U64(BLOOM_M_MAX, 8589934400);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STATUS(bf_check_shape(cases[i].m, cases[i].k), cases[i].status);
}

static const BloomHeader valid_header = {BLOOM_FORMAT_VERSION, BLOOM_HASH_XXH3_EDH, 3, 0, 18};

static void
test_check_header(void)
{
	static const struct
	{
		BloomHeader header;
		bf_status	status;
	}			cases[] = {
		{{1, 1, 3, 0, 18}, BF_OK},
		{{1, 1, 1, 0, 1}, BF_OK},
		{{1, 1, 64, 0, BLOOM_M_MAX}, BF_OK},
		{{0, 1, 3, 0, 18}, BF_FORMAT_VERSION},
		{{2, 1, 3, 0, 18}, BF_FORMAT_VERSION},
		{{255, 1, 3, 0, 18}, BF_FORMAT_VERSION},
		{{1, 0, 3, 0, 18}, BF_HASH_SCHEME},
		{{1, 3, 3, 0, 18}, BF_HASH_SCHEME},
		{{1, 0, 3, 0, 18}, BF_HASH_SCHEME},
		{{1, 2, 3, 0, 18}, BF_BLOCK_SHAPE},
		{{1, 2, 3, 0, 1000}, BF_BLOCK_SHAPE},
		{{1, 2, 3, 0, 512}, BF_OK},
		{{1, 2, 64, 0, 1024}, BF_OK},
		{{1, 1, 0, 0, 18}, BF_K_RANGE},
		{{1, 1, 65, 0, 18}, BF_K_RANGE},
		{{1, 1, 255, 0, 18}, BF_K_RANGE},
		{{1, 1, 3, 1, 18}, BF_FLAGS},
		{{1, 1, 3, 0x80, 18}, BF_FLAGS},
		{{1, 1, 3, 0, 0}, BF_M_RANGE},
		{{1, 1, 3, 0, BLOOM_M_MAX + 1}, BF_TOO_LARGE},
		{{1, 1, 3, 0, UINT64_MAX}, BF_TOO_LARGE},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STATUS(bf_check_header(&cases[i].header), cases[i].status);
}

static void
test_check_bits(void)
{
	uint8_t		bits[32];
	BloomHeader header = valid_header;

	memset(bits, 0, sizeof(bits));
	CHECK_STATUS(bf_check_bits(&header, bits, 8), BF_OK);
	CHECK_STATUS(bf_check_bits(&header, bits, 0), BF_LENGTH);
	CHECK_STATUS(bf_check_bits(&header, bits, 7), BF_LENGTH);
	CHECK_STATUS(bf_check_bits(&header, bits, 9), BF_LENGTH);
	CHECK_STATUS(bf_check_bits(&header, bits, 16), BF_LENGTH);

	/* an unchecked header must not make the length computation wrap */
	header.m = UINT64_MAX;
	CHECK_STATUS(bf_check_bits(&header, bits, 0), BF_TOO_LARGE);
	header.m = 0;
	CHECK_STATUS(bf_check_bits(&header, bits, 0), BF_M_RANGE);

	/* every m up to 3 words: bit m - 1 may be set, any bit >= m may not */
	for (uint64_t m = 1; m <= 192; m++)
	{
		size_t		nbytes = (size_t) bloom_payload_bytes(m);
		uint8_t    *copy;
		bool		all_ok = true;

		header.m = m;
		memset(bits, 0, sizeof(bits));
		naive_set_bit(bits, m - 1);
		copy = exact_copy(bits, nbytes);
		CHECK_STATUS(bf_check_bits(&header, copy, nbytes), BF_OK);
		free(copy);

		for (uint64_t position = m; position < 8 * nbytes; position++)
		{
			memset(bits, 0, sizeof(bits));
			naive_set_bit(bits, position);
			copy = exact_copy(bits, nbytes);
			all_ok &= bf_check_bits(&header, copy, nbytes) == BF_PADDING_BITS;
			free(copy);
		}
		CHECK(all_ok);
	}
}

/* ---- hashing: golden vectors ---- */

static const struct
{
	const char *label;
	const uint8_t *bytes;
	size_t		len;
	uint64_t	h1;
	uint64_t	h2;
	uint64_t	positions_958506[7];
	uint64_t	positions_2_40_plus_3[7];
}			golden[] = {
	{
		"\"\"", (const uint8_t *) "", 0,
		0x6001c324468d497f, 0x99aa06d3014798d8,
		{359465, 934809, 551647, 168485, 743828, 360666, 936010},
		{412346426439, 1072328996682, 632799939146, 193270881610,
		853253451853, 413724394318, 1073706964561}
	},
	{
		"\"a\"", (const uint8_t *) "a", 1,
		0xe6c632b61e964e1f, 0xa96faf705af16834,
		{864056, 539947, 215838, 850236, 526127, 202018, 836415},
		{991167690273, 619379304059, 247590917845, 975314159410,
		603525773196, 231737386981, 959460628546}
	},
	{
		"\"hello world\"", (const uint8_t *) "hello world", 11,
		0xa99b8775cc15b6c7, 0xdf8d09e93f874900,
		{635038, 513543, 392049, 270554, 149059, 27565, 864576},
		{728458819022, 589091135245, 449723451468, 310355767691,
		170988083914, 31620400137, 991764344139}
	},
	{
		"int8 42", (const uint8_t *) "\x2a\0\0\0\0\0\0\0", 8,
		0x61c2164e8b895a45, 0x9bab3e2f55e1fe86,
		{366022, 948872, 573216, 197560, 780410, 404754, 29098},
		{419868069516, 1088460979684, 657542262073, 226623544461,
		895216454629, 464297737018, 33379019406}
	},
};

#define NGOLDEN (sizeof(golden) / sizeof(golden[0]))

static void
test_hash_golden(void)
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
 * bf_probe_positions, bf_add_hash and bf_contains_hash against the closed
 * form reduce(h1 + i*h2 + (i^3 - i)/6 mod 2^64, m), for random hashes and
 * shapes up to k = 64.
 */
static void
test_probe_sequence(void)
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
static void
test_adder(void)
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

static void
test_blocked_golden(void)
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
static void
test_blocked_probes(void)
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
 * Shapes: bf_blocked_shape meets p with the fewest blocks for its k, and
 * bf_default_shape keeps scheme 1 below BF_BLOCKED_MIN_BYTES and where
 * blocking would cost more than BF_BLOCKED_MAX_GROWTH_PERCENT.
 */
static void
test_blocked_shape(void)
{
	const double rates[] = {0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6};
	const int64_t capacities[] = {1, 1000, 100000, 10000000};
	uint64_t	m;
	uint32_t	k;
	uint8_t		scheme;
	bool		ok = true;

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		for (size_t j = 0; j < sizeof(capacities) / sizeof(capacities[0]); j++)
		{
			double		p = rates[i];
			int64_t		n = capacities[j];
			uint64_t	classic_m;
			uint32_t	classic_k;

			CHECK_STATUS(bf_blocked_shape(p, n, &m, &k), BF_OK);
			ok &= m % BLOOM_BLOCK_BITS == 0 && m >= BLOOM_BLOCK_BITS;
			ok &= bf_blocked_false_positive_rate(m, k, (double) n) <= p;
			if (m > BLOOM_BLOCK_BITS)
				ok &= bf_blocked_false_positive_rate(m - BLOOM_BLOCK_BITS, k, (double) n) > p;
			CHECK_STATUS(bf_optimal_shape(p, n, &classic_m, &classic_k), BF_OK);
			ok &= k <= classic_k;
			CHECK_STATUS(bf_default_shape(p, n, &m, &k, &scheme), BF_OK);
			if (scheme == BLOOM_HASH_XXH3_BLOCKED)
				ok &= bloom_payload_bytes(classic_m) >= BF_BLOCKED_MIN_BYTES &&
					m * 100 <= classic_m * (100 + BF_BLOCKED_MAX_GROWTH_PERCENT) &&
					m % BLOOM_BLOCK_BITS == 0;
			else
				ok &= m == classic_m && k == classic_k;
		}
	CHECK(ok);

	/* issue 2's example stays scheme 1; bench case (c)'s filter is blocked */
	CHECK_STATUS(bf_default_shape(0.01, 100000, &m, &k, &scheme), BF_OK);
	CHECK(m == 958506 && k == 7 && scheme == BLOOM_HASH_XXH3_EDH);
	CHECK_STATUS(bf_default_shape(0.01, 10000000, &m, &k, &scheme), BF_OK);
	CHECK(m == 98959360 && k == 6 && scheme == BLOOM_HASH_XXH3_BLOCKED);
	/* asked twice (the second answer comes from the remembered one) */
	CHECK_STATUS(bf_default_shape(0.01, 10000000, &m, &k, &scheme), BF_OK);
	CHECK(m == 98959360 && k == 6 && scheme == BLOOM_HASH_XXH3_BLOCKED);
	/* 1e-4 would cost 14% more bits: scheme 1 */
	CHECK_STATUS(bf_default_shape(1e-4, 10000000, &m, &k, &scheme), BF_OK);
	CHECK(m == 191701168 && k == 13 && scheme == BLOOM_HASH_XXH3_EDH);
	/* errors are bf_optimal_shape's */
	CHECK_STATUS(bf_default_shape(0.0, 10, &m, &k, &scheme), BF_FALSE_POSITIVE_RATE_RANGE);
	CHECK_STATUS(bf_default_shape(0.01, 0, &m, &k, &scheme), BF_CAPACITY_RANGE);
	CHECK_STATUS(bf_default_shape(1e-30, 10, &m, &k, &scheme), BF_K_RANGE);
	CHECK_STATUS(bf_default_shape(0.01, INT64_MAX, &m, &k, &scheme), BF_TOO_LARGE);
	CHECK(isnan(bf_blocked_false_positive_rate(100, 3, 5.0)));
}

/*
 * Accuracy of scheme 2 at the shapes bf_blocked_shape gives: the measured
 * false-positive rate over 10^6 absent values against the Poisson formula
 * (and so against p) within 5 sigma, bf_filter_false_positive_rate of the
 * built filter against the measurement, and the blocked Swamidass-Baldi
 * estimate within 2% from a tenth of the capacity to all of it.
 */
static void
test_blocked_accuracy(void)
{
	const double rates[] = {0.01, 0.001};
	const int64_t probes = 1000000;

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
	{
		const int64_t n = 100000;
		uint64_t	m;
		uint32_t	k;
		size_t		nbytes;
		uint8_t    *bits;
		int64_t		false_negatives = 0,
					false_positives = 0;
		double		expected,
					sigma,
					measured,
					from_bits;
		int64_t		added = 0;
		bool		estimates_ok = true;

		CHECK_STATUS(bf_blocked_shape(rates[r], n, &m, &k), BF_OK);
		nbytes = (size_t) bloom_payload_bytes(m);
		bits = xmalloc(nbytes);
		memset(bits, 0, nbytes);
		for (int64_t target = n / 10; target <= 2 * n; target += n / 10)
		{
			double		estimate;

			for (; added < target; added++)
				bf_add(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash_int64(added));
			estimate = bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_BLOCKED,
											   bf_popcount(bits, nbytes));
			estimates_ok &= fabs(estimate / (double) target - 1.0) < 0.02;
			if (target == n || target == 2 * n)
				printf("blocked p = %g, m = %llu, k = %u: %lld values estimated at %.1f\n",
					   rates[r], (unsigned long long) m, k, (long long) target, estimate);
			if (target == n)
				break;
		}
		CHECK(estimates_ok);

		for (int64_t key = 0; key < n; key++)
			false_negatives += !bf_contains(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash_int64(key));
		for (int64_t key = n; key < n + probes; key++)
			false_positives += bf_contains(bits, m, k, BLOOM_HASH_XXH3_BLOCKED, hash_int64(key));
		expected = bf_blocked_false_positive_rate(m, k, (double) n);
		sigma = sqrt(expected * (1.0 - expected) / probes);
		measured = (double) false_positives / probes;
		from_bits = bf_filter_false_positive_rate(bits, m, k, BLOOM_HASH_XXH3_BLOCKED,
												  bf_popcount(bits, nbytes));
		printf("blocked false-positive rate, p = %g: measured %.6f, expected %.6f, from the bits %.6f, sigma %.6f, %+.2f sigma\n",
			   rates[r], measured, expected, from_bits, sigma, (measured - expected) / sigma);
		CHECK(false_negatives == 0);
		CHECK(expected <= rates[r]);
		CHECK(fabs(measured - expected) < 5 * sigma);
		CHECK(fabs(from_bits - measured) < 5 * sigma);
		free(bits);
	}
}

/* ---- whole-array operations ---- */

static int	interrupt_calls;

static void
count_interrupt(void)
{
	interrupt_calls++;
}

static void
test_array_operations(void)
{
	static const size_t sizes[] = {0, 8, 16, 24, 64, 72, 1000, 4096, 65536 + 8,
	(3 << 20) + 8};
	bool		popcount_ok = true,
				popcount_or_ok = true,
				or_ok = true,
				and_ok = true;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t offset_a = 0; offset_a < 8; offset_a += (sizes[s] > 100000 ? 7 : 1))
		{
			size_t		nbytes = sizes[s];
			size_t		offset_b = (offset_a * 3 + 1) % 8;
			uint8_t    *buffer_a = xmalloc(nbytes + 8);
			uint8_t    *buffer_b = xmalloc(nbytes + 8);
			uint8_t    *expected = xmalloc(nbytes);
			uint8_t    *a = buffer_a + offset_a;	/* deliberately unaligned */
			uint8_t    *b = buffer_b + offset_b;
			uint64_t	count_a = 0,
						count_or = 0;

			rng_fill(buffer_a, nbytes + 8);
			rng_fill(buffer_b, nbytes + 8);
			for (uint64_t i = 0; i < 8 * (uint64_t) nbytes; i++)
			{
				count_a += naive_test_bit(a, i);
				count_or += naive_test_bit(a, i) || naive_test_bit(b, i);
			}
			popcount_ok &= bf_popcount(a, nbytes) == count_a;
			popcount_or_ok &= bf_popcount_or(a, b, nbytes) == count_or;

			for (size_t i = 0; i < nbytes; i++)
				expected[i] = a[i] | b[i];
			bf_or_into(a, b, nbytes);
			or_ok &= nbytes == 0 || memcmp(a, expected, nbytes) == 0;

			rng_fill(a, nbytes);
			for (size_t i = 0; i < nbytes; i++)
				expected[i] = a[i] & b[i];
			bf_and_into(a, b, nbytes);
			and_ok &= nbytes == 0 || memcmp(a, expected, nbytes) == 0;

			free(buffer_a);
			free(buffer_b);
			free(expected);
		}
	CHECK(popcount_ok);
	CHECK(popcount_or_ok);
	CHECK(or_ok);
	CHECK(and_ok);

	/* a stray tail (not a multiple of 8) is still counted, not overrun */
	{
		uint8_t    *odd = exact_copy("\xff\x01\x80\x00\x0f\xf0\x03\x07\x01\x03\x07", 11);
		uint8_t    *ones = exact_copy("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11);

		CHECK_U64(bf_popcount(odd, 11), 8 + 1 + 1 + 0 + 4 + 4 + 2 + 3 + 1 + 2 + 3);
		CHECK_U64(bf_popcount_or(odd, ones, 11), 88);
		bf_and_into(ones, odd, 11);
		CHECK(memcmp(ones, odd, 11) == 0);
		free(odd);
		free(ones);
	}

	/* the interrupt hook runs once per BF_INTERRUPT_STRIDE bytes after the first */
	{
		size_t		nbytes = 3 * BF_INTERRUPT_STRIDE + 8;
		uint8_t    *a = xmalloc(nbytes);
		uint8_t    *b = xmalloc(nbytes);

		memset(a, 0x55, nbytes);
		memset(b, 0xaa, nbytes);
		bf_interrupt_hook = count_interrupt;
		interrupt_calls = 0;
		CHECK_U64(bf_popcount(a, nbytes), 4 * (uint64_t) nbytes);
		CHECK(interrupt_calls == 3);
		interrupt_calls = 0;
		CHECK_U64(bf_popcount_or(a, b, nbytes), 8 * (uint64_t) nbytes);
		CHECK(interrupt_calls == 3);
		interrupt_calls = 0;
		bf_or_into(a, b, nbytes);
		CHECK(interrupt_calls == 3);
		interrupt_calls = 0;
		bf_and_into(a, b, nbytes);
		CHECK(interrupt_calls == 3);
		interrupt_calls = 0;
		bf_popcount(a, BF_INTERRUPT_STRIDE);
		CHECK(interrupt_calls == 0);
		bf_interrupt_hook = NULL;
		free(a);
		free(b);
	}
}

/* ---- estimates ---- */

static bool
close_to(double actual, double expected, double relative)
{
	return fabs(actual - expected) <= relative * fabs(expected);
}

static void
test_estimates(void)
{
	CHECK(bf_estimate_cardinality(958506, 7, BLOOM_HASH_XXH3_EDH, 0) == 0.0);
	CHECK(isinf(bf_estimate_cardinality(958506, 7, BLOOM_HASH_XXH3_EDH, 958506)) &&
		  bf_estimate_cardinality(958506, 7, BLOOM_HASH_XXH3_EDH, 958506) > 0);
	/* half full: n* = (m/k) ln 2 */
	CHECK(close_to(bf_estimate_cardinality(958506, 7, BLOOM_HASH_XXH3_EDH, 479253), 94912.24734997013, 1e-13));
	/* one bit of a billion: log1p keeps the digits that log(1 - X/m) loses */
	CHECK(close_to(bf_estimate_cardinality(1000000000, 1, BLOOM_HASH_XXH3_EDH, 1), 1.0000000005, 1e-14));
	CHECK(close_to(bf_estimate_cardinality(64, 2, BLOOM_HASH_XXH3_EDH, 1), -32.0 * log1p(-1.0 / 64), 1e-15));

	CHECK(bf_current_false_positive_rate(958506, 7, 0) == 0.0);
	CHECK(bf_current_false_positive_rate(958506, 7, 479253) == 0.0078125);
	CHECK(bf_current_false_positive_rate(958506, 7, 958506) == 1.0);
	CHECK(close_to(bf_current_false_positive_rate(1000, 3, 100), 0.001, 1e-13));
}

/*
 * The planned false-positive rate and Goel and Gupta's bound, against values
 * computed independently with python3's decimal module at 40 digits.
 */
static void
test_expected_false_positive_rate(void)
{
	static const struct
	{
		uint64_t	m;
		uint32_t	k;
		uint64_t	n;
		double		classic;
		double		goel_gupta;
	}			cases[] = {
		/* the textbook shape, at and past its capacity */
		{958506, 7, 100000, 0.01003920958175812241, 0.01003949790782511546},
		{958506, 7, 200000, 0.1574528522697232936, 0.1574545763177259088},
		{9585059, 7, 1000000, 0.01003921455925386225, 0.01003924339158494118},
		/* k = 1, n = m: 1 - 1/e */
		{1000, 1, 1000, 0.6321205588285576784, 0.6326725158759811597},
		{3, 1, 1, 0.2834686894262107496, 0.5276334472589852929},
		/* tiny kn/m: 1 - e^(-x) would lose most digits, -expm1(-x) does not */
		{1000000000, 1, 1, 9.999999995000000002e-10, 1.500000000375e-9},
		/* nothing added: no false positives, but the bound is above 0 */
		{64, 2, 0, 0.0, 0.0002479901643047109385},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		classic = bf_expected_false_positive_rate(cases[i].m, cases[i].k, cases[i].n);
		double		bound = bf_goel_gupta_bound(cases[i].m, cases[i].k, cases[i].n);

		if (!CHECK(close_to(classic, cases[i].classic, 1e-12)))
			fprintf(stderr, "    case %zu: classic %.17g, expected %.17g\n", i, classic, cases[i].classic);
		if (!CHECK(close_to(bound, cases[i].goel_gupta, 1e-12)))
			fprintf(stderr, "    case %zu: bound %.17g, expected %.17g\n", i, bound, cases[i].goel_gupta);
		CHECK(classic <= bound);
	}
	/* m = 1: the bound's m - 1 is 0; every probe hits the one bit */
	CHECK(bf_goel_gupta_bound(1, 3, 5) == 1.0);
	CHECK(bf_expected_false_positive_rate(1, 3, 5) < 1.0);
	/* kn/m = ln 2 (to 3e-7): half the bits set, so 2^-k */
	CHECK(close_to(bf_expected_false_positive_rate(7000000, 7, 693147), 0.0078125, 1e-5));
	/* a saturated plan: both tend to 1 */
	CHECK(close_to(bf_expected_false_positive_rate(64, 3, 100000), 1.0, 1e-12));
	CHECK(close_to(bf_goel_gupta_bound(64, 3, 100000), 1.0, 1e-12));
	CHECK(isnan(bf_expected_false_positive_rate(0, 3, 5)));
	CHECK(isnan(bf_goel_gupta_bound(64, 0, 5)));
}

/*
 * A filter sized for n = 100000 at p = 0.01 (m = 958506, k = 7), filled with
 * 100000 distinct keys and probed with 1,000,000 others.  The false-positive
 * count is binomial around the classical p0 = (1 - e^(-kn/m))^k; its
 * standard deviation is sqrt(p0 (1 - p0) / N).  Goel and Gupta's upper bound
 * is printed alongside: the two are far closer than the sampling noise.
 */
static void
test_false_positive_rate(void)
{
	const int64_t n = 100000;
	const int64_t probes = 1000000;
	uint64_t	m;
	uint32_t	k;
	uint8_t    *bits;
	int64_t		false_negatives = 0,
				false_positives = 0;
	double		p0,
				upper,
				sigma,
				measured;

	CHECK_STATUS(bf_optimal_shape(0.01, n, &m, &k), BF_OK);
	bits = xmalloc((size_t) bloom_payload_bytes(m));
	memset(bits, 0, (size_t) bloom_payload_bytes(m));
	for (int64_t key = 0; key < n; key++)
		bf_add_hash(bits, m, k, hash_int64(key));
	for (int64_t key = 0; key < n; key++)
		false_negatives += !bf_contains_hash(bits, m, k, hash_int64(key));
	for (int64_t key = n; key < n + probes; key++)
		false_positives += bf_contains_hash(bits, m, k, hash_int64(key));

	p0 = bf_expected_false_positive_rate(m, k, (uint64_t) n);
	upper = bf_goel_gupta_bound(m, k, (uint64_t) n);
	sigma = sqrt(p0 * (1.0 - p0) / probes);
	measured = (double) false_positives / probes;
	printf("false-positive rate: measured %.6f, expected %.6f (Goel-Gupta bound %.6f), sigma %.6f, %+.2f sigma\n",
		   measured, p0, upper, sigma, (measured - p0) / sigma);
	CHECK(false_negatives == 0);
	CHECK(fabs(measured - p0) <= 6 * sigma);
	CHECK(p0 <= upper);
	free(bits);
}

/*
 * Swamidass-Baldi estimates near half fill.  By the delta method the
 * estimate's standard deviation is sqrt(m (e^t - t - 1)) / k with t = kn/m
 * (about 78 here, 0.08%), so the 2% bound is a loose one; the union and
 * intersection are held to 6 standard deviations of the estimates they are
 * made from.
 */
static double
estimate_sigma(uint64_t m, uint32_t k, double n)
{
	double		t = k * n / (double) m;

	return sqrt((double) m * (exp(t) - t - 1.0)) / k;
}

static void
test_cardinality_estimate(void)
{
	const uint64_t m = 958506;
	const uint32_t k = 7;
	size_t		nbytes = (size_t) bloom_payload_bytes(m);
	uint8_t    *a = xmalloc(nbytes);
	uint8_t    *b = xmalloc(nbytes);
	double		estimate_a,
				estimate_b,
				estimate_union,
				estimate_intersection,
				sigma;

	memset(a, 0, nbytes);
	memset(b, 0, nbytes);
	/* A = [0, 95000) (half full), B = [60000, 120000): A u B = 120000, A n B = 35000 */
	for (int64_t key = 0; key < 95000; key++)
		bf_add_hash(a, m, k, hash_int64(key));
	for (int64_t key = 60000; key < 120000; key++)
		bf_add_hash(b, m, k, hash_int64(key));

	estimate_a = bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_EDH, bf_popcount(a, nbytes));
	estimate_b = bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_EDH, bf_popcount(b, nbytes));
	estimate_union = bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_EDH, bf_popcount_or(a, b, nbytes));
	estimate_intersection = estimate_a + estimate_b - estimate_union;
	printf("cardinality estimates: |A| = 95000 ~ %.1f, |B| = 60000 ~ %.1f, |A u B| = 120000 ~ %.1f, |A n B| = 35000 ~ %.1f\n",
		   estimate_a, estimate_b, estimate_union, estimate_intersection);

	CHECK(close_to(estimate_a, 95000, 0.02));
	CHECK(fabs(estimate_a - 95000) <= 6 * estimate_sigma(m, k, 95000));
	CHECK(close_to(estimate_b, 60000, 0.02));
	CHECK(close_to(estimate_union, 120000, 0.02));
	sigma = estimate_sigma(m, k, 95000) + estimate_sigma(m, k, 60000) +
		estimate_sigma(m, k, 120000);
	CHECK(fabs(estimate_intersection - 35000) <= 6 * sigma);

	/*
	 * OR of the two is the filter of the union: the same estimate, to 1e-15
	 * (one of the two may have been kept in an 80-bit x87 register)
	 */
	bf_or_into(a, b, nbytes);
	CHECK(close_to(bf_estimate_cardinality(m, k, BLOOM_HASH_XXH3_EDH, bf_popcount(a, nbytes)),
				   estimate_union, 1e-15));
	free(a);
	free(b);
}

/* ---- base64 ---- */

/* A bit-at-a-time encoder, to hold the table-driven one to. */
static void
naive_base64(const uint8_t *src, size_t nbytes, char *dst)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t		nbits = 8 * nbytes;
	size_t		out = 0;

	for (size_t bit = 0; bit < nbits; bit += 6)
	{
		unsigned	value = 0;

		for (size_t j = bit; j < bit + 6; j++)
			value = value << 1 | (j < nbits ? (src[j / 8] >> (7 - j % 8)) & 1 : 0);
		dst[out++] = alphabet[value];
	}
	while (out % 4 != 0)
		dst[out++] = '=';
	dst[out] = '\0';
}

static bf_status
base64_decode_exact(const char *text, size_t len, uint8_t *dst, size_t nbytes)
{
	char	   *copy = exact_copy(text, len);
	bf_status	status = bf_base64_decode(copy, len, dst, nbytes);

	free(copy);
	return status;
}

static void
test_base64(void)
{
	static const struct
	{
		const char *bytes;
		const char *text;
	}			rfc4648[] = {
		{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
		{"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
		{"\xff\xff\xfe", "///+"}, {"\xfb\xef", "++8="},
	};
	uint8_t		data[200];
	uint8_t		decoded[200];
	char		text[300];
	char		expected[300];
	bool		round_trips = true;

	for (size_t i = 0; i < sizeof(rfc4648) / sizeof(rfc4648[0]); i++)
	{
		size_t		nbytes = strlen(rfc4648[i].bytes);

		CHECK_U64(bf_base64_length(nbytes), strlen(rfc4648[i].text));
		bf_base64_encode((const uint8_t *) rfc4648[i].bytes, nbytes, text);
		text[bf_base64_length(nbytes)] = '\0';
		CHECK(strcmp(text, rfc4648[i].text) == 0);
		CHECK_STATUS(base64_decode_exact(rfc4648[i].text, strlen(rfc4648[i].text), decoded, nbytes), BF_OK);
		CHECK(nbytes == 0 || memcmp(decoded, rfc4648[i].bytes, nbytes) == 0);
	}

	/* every length 0..100: table-driven encoder = naive one, and back */
	for (size_t nbytes = 0; nbytes <= 100; nbytes++)
	{
		uint8_t    *src;
		size_t		len = (size_t) bf_base64_length(nbytes);

		rng_fill(data, nbytes);
		src = exact_copy(data, nbytes);
		bf_base64_encode(src, nbytes, text);
		free(src);
		naive_base64(data, nbytes, expected);
		round_trips &= len == strlen(expected) && memcmp(text, expected, len) == 0;
		round_trips &= base64_decode_exact(text, len, decoded, nbytes) == BF_OK;
		round_trips &= nbytes == 0 || memcmp(decoded, data, nbytes) == 0;
	}
	CHECK(round_trips);

	CHECK_U64(bf_base64_length(UINT64_MAX), UINT64_MAX);	/* saturates */
	CHECK_U64(bf_base64_length(UINT64_MAX / 4 * 3), UINT64_MAX / 4 * 4);

	/* malformed, one class per line: decoding "foobar"-sized data */
	{
		static const struct
		{
			const char *text;
			size_t		nbytes;
		}			bad[] = {
			{"Zm9vYmF", 6},		/* one character short */
			{"Zm9vYmFyA", 6},	/* one character too many */
			{"Zm9vYmFyZm9v", 6},	/* one group too many */
			{"Zm9vYmFy", 5},	/* length of a different byte count */
			{"Zm9vYmFy", 7},
			{"", 1},
			{"Zm9v YmF", 6},	/* whitespace */
			{" Zm9vYmF", 6},
			{"Zm9vYmF\n", 6},
			{"Zm9vYmF\t", 6},
			{"Zm9v\r\nYm", 6},
			{"Zm9vYm-y", 6},	/* base64url alphabet */
			{"Zm9vYm_y", 6},
			{"Zm9vYm.y", 6},
			{"Zm9=YmFy", 6},	/* '=' not at the end */
			{"Zg==Zm9v", 4},
			{"Zm9v====", 4},	/* too much padding */
			{"Zm9=", 3},		/* padding where none is due */
			{"Zg=A", 1},		/* padding not at the end of the group */
			{"Z===", 1},
			{"=g==", 1},
			{"Zm=8", 2},
			{"Zg=", 1},			/* unpadded */
			{"Zg", 1},
			{"Zm8", 2},
			{"Zh==", 1},		/* non-zero unused bits */
			{"Zv==", 1},
			{"Zm9=", 2},
			{"Zm/=", 2},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK_STATUS(base64_decode_exact(bad[i].text, strlen(bad[i].text), decoded, bad[i].nbytes), BF_BASE64);
		/* a NUL is just another bad character */
		CHECK_STATUS(base64_decode_exact("Zm9v\0mFy", 8, decoded, 6), BF_BASE64);
	}

	/* every byte value outside the alphabet, at every position of a group */
	{
		int			rejected = 0,
					accepted = 0;

		for (int c = 0; c < 256; c++)
			for (int position = 0; position < 4; position++)
			{
				char		group[4] = {'Z', 'm', '9', 'v'};

				group[position] = (char) c;
				if (base64_decode_exact(group, 4, decoded, 3) == BF_OK)
					accepted++;
				else
					rejected++;
			}
		CHECK(accepted == 4 * 64);
		CHECK(rejected == 4 * (256 - 64));
	}

	/*
	 * Uniqueness of the last group: of the 64^2 strings "xy==", exactly 256
	 * decode (one per byte), and of the 64^3 "xyz=", exactly 65536; each
	 * re-encodes to itself.
	 */
	{
		static const char alphabet[] =
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		int			accepted_1 = 0,
					accepted_2 = 0;
		bool		canonical = true;

		for (int x = 0; x < 64; x++)
			for (int y = 0; y < 64; y++)
			{
				char		group[4] = {alphabet[x], alphabet[y], '=', '='};

				if (bf_base64_decode(group, 4, decoded, 1) == BF_OK)
				{
					accepted_1++;
					bf_base64_encode(decoded, 1, text);
					canonical &= memcmp(text, group, 4) == 0;
				}
				for (int z = 0; z < 64; z++)
				{
					char		group3[4] = {alphabet[x], alphabet[y], alphabet[z], '='};

					if (bf_base64_decode(group3, 4, decoded, 2) == BF_OK)
					{
						accepted_2++;
						bf_base64_encode(decoded, 2, text);
						canonical &= memcmp(text, group3, 4) == 0;
					}
				}
			}
		CHECK(accepted_1 == 256);
		CHECK(accepted_2 == 65536);
		CHECK(canonical);
	}

	/* a large buffer crosses interrupt strides both ways */
	{
		size_t		nbytes = 3 * BF_INTERRUPT_STRIDE + 2;
		size_t		len = (size_t) bf_base64_length(nbytes);
		uint8_t    *src = xmalloc(nbytes);
		uint8_t    *back = xmalloc(nbytes);
		char	   *encoded = xmalloc(len);

		rng_fill(src, nbytes);
		bf_interrupt_hook = count_interrupt;
		interrupt_calls = 0;
		bf_base64_encode(src, nbytes, encoded);
		CHECK(interrupt_calls == 3);
		interrupt_calls = 0;
		CHECK_STATUS(bf_base64_decode(encoded, len, back, nbytes), BF_OK);
		CHECK(interrupt_calls == 3);
		bf_interrupt_hook = NULL;
		CHECK(memcmp(src, back, nbytes) == 0);
		/* a bad character late in the stream is still found */
		encoded[len - 100] = '*';
		CHECK_STATUS(bf_base64_decode(encoded, len, back, nbytes), BF_BASE64);
		free(src);
		free(back);
		free(encoded);
	}
}

/* ---- text form ---- */

/*
 * Decode a whole text form from a buffer of exactly len bytes, as bloom_in
 * would: header, then the bit array into a buffer the size m calls for.
 */
static bf_status
text_decode(const char *text, size_t len, BloomHeader *header, uint8_t **bits)
{
	char	   *copy = exact_copy(text, len);
	size_t		offset = 0;
	bf_status	status;

	*bits = NULL;
	status = bf_text_decode_header(copy, len, header, &offset);
	if (status == BF_OK)
	{
		CHECK(offset <= len);
		/* header-only cases use m up to BLOOM_M_MAX: don't allocate 1 GB */
		if (bloom_payload_bytes(header->m) <= ((size_t) 1 << 24))
		{
			*bits = xmalloc((size_t) bloom_payload_bytes(header->m));
			status = bf_text_decode_bits(copy + offset, len - offset, header, *bits);
		}
		else if (bf_base64_length(bloom_payload_bytes(header->m)) == len - offset)
			status = BF_OK;
		else
			status = BF_LENGTH;
	}
	free(copy);
	if (status != BF_OK)
	{
		free(*bits);
		*bits = NULL;
	}
	return status;
}

static char *
text_encode(const BloomHeader *header, const uint8_t *bits)
{
	char	   *text = xmalloc((size_t) bf_text_length(header) + 1);

	bf_text_encode(header, bits, text);
	return text;
}

static void
test_text_form(void)
{
	/* the example from core.h, and a golden filter holding the four golden values */
	{
		uint8_t		zero[8] = {0};
		char	   *text = text_encode(&valid_header, zero);

		CHECK(strcmp(text, "bloom:v1:h1:m18:k3:AAAAAAAAAAA=") == 0);
		CHECK_U64(bf_text_length(&valid_header), 31);
		free(text);
	}
	{
		BloomHeader header = {1, 1, 3, 0, 100};
		uint8_t		bits[16] = {0};
		const char *expected = "bloom:v1:h1:m100:k3:AABAAGABIAsEAAAEBgAAAA==";
		char	   *text;
		BloomHeader decoded;
		uint8_t    *decoded_bits;

		for (size_t g = 0; g < NGOLDEN; g++)
			bf_add_hash(bits, header.m, header.k, bf_hash_bytes(golden[g].bytes, golden[g].len));
		text = text_encode(&header, bits);
		CHECK(strcmp(text, expected) == 0);
		CHECK_STATUS(text_decode(expected, strlen(expected), &decoded, &decoded_bits), BF_OK);
		CHECK(decoded_bits != NULL && memcmp(decoded_bits, bits, 16) == 0);
		for (size_t g = 0; g < NGOLDEN && decoded_bits != NULL; g++)
			CHECK(bf_contains_hash(decoded_bits, header.m, header.k,
								   bf_hash_bytes(golden[g].bytes, golden[g].len)));
		free(text);
		free(decoded_bits);
	}

	/* round trips over many shapes; length exact */
	{
		bool		ok = true;

		for (int trial = 0; trial < 400; trial++)
		{
			BloomHeader header = {1, 1, (uint8_t) (1 + rng_next() % 64), 0,
			trial < 300 ? (uint64_t) trial + 1 : 1 + rng_next() % 2000000};
			size_t		nbytes = (size_t) bloom_payload_bytes(header.m);
			uint8_t    *bits = xmalloc(nbytes);
			uint8_t    *decoded_bits;
			BloomHeader decoded;
			char	   *text;

			memset(bits, 0, nbytes);
			for (int i = 0; i < 20; i++)
				bf_add_hash(bits, header.m, header.k, (bf_hash) {rng_next(), rng_next()});
			text = text_encode(&header, bits);
			ok &= strlen(text) == bf_text_length(&header);
			ok &= text_decode(text, strlen(text), &decoded, &decoded_bits) == BF_OK;
			ok &= decoded_bits != NULL &&
				header_equal(&decoded, &header) &&
				memcmp(decoded_bits, bits, nbytes) == 0;
			free(bits);
			free(decoded_bits);
			free(text);
		}
		CHECK(ok);
	}
	{
		BloomHeader header = {1, 1, 64, 0, BLOOM_M_MAX};

		/* "bloom:v1:h1:m8589934400:k64:" + 4 * ceil(1073741800 / 3) */
		CHECK_U64(bf_text_length(&header), 28 + 1431655736);
	}

	/* malformed text, one class per line */
	{
		static const struct
		{
			const char *text;
			bf_status	status;
		}			cases[] = {
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=", BF_OK},
			{"bloom:v1:h1:m1:k1:AAAAAAAAAAA=", BF_OK},
			{"bloom:v1:h1:m64:k64://////////8=", BF_OK},
			{"bloom:v1:h1:m8589934400:k3:", BF_LENGTH},	/* header fine, payload short */
			{"", BF_SYNTAX},
			{"bloom", BF_SYNTAX},
			{"bloom:", BF_SYNTAX},
			{"bloom:v", BF_SYNTAX},
			{"bloom:v1", BF_SYNTAX},
			{"bloom:v1:", BF_SYNTAX},
			{"bloom:v1:h1:m18:k3", BF_SYNTAX},
			{"Bloom:v1:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"BLOOM:V1:H1:M18:K3:AAAAAAAAAAA=", BF_SYNTAX},
			{" bloom:v1:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom: v1:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1 :h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m 18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18:k3 :AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom;v1;h1;m18;k3;AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:m18:h1:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* order */
			{"bloom:v1:h1:k3:m18:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* missing field */
			{"bloom:v1:h1:m18:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18:k:AAAAAAAAAAA=", BF_SYNTAX},	/* no digits */
			{"bloom:v1:h:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v01:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* leading zeros */
			{"bloom:v1:h01:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m018:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m00:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18:k03:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m+18:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* signs */
			{"bloom:v1:h1:m-18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v+1:h1:m18:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m0x12:k3:AAAAAAAAAAA=", BF_SYNTAX},	/* not decimal */
			{"bloom:v1:h1:m1e3:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18.0:k3:AAAAAAAAAAA=", BF_SYNTAX},
			{"bloom:v1:h1:m18:k3:x:AAAAAAAAAAA=", BF_BASE64},	/* extra field */
			{"bloom:v2:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},
			{"bloom:v0:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},
			{"bloom:v257:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},	/* 257 = 1 mod 256 */
			{"bloom:v18446744073709551617:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},
			{"bloom:v99999999999999999999999999:h1:m18:k3:AAAAAAAAAAA=", BF_FORMAT_VERSION},
			{"bloom:v2:a later format may look different", BF_FORMAT_VERSION},
			{"bloom:v1:h0:m18:k3:AAAAAAAAAAA=", BF_HASH_SCHEME},
			{"bloom:v1:h3:m18:k3:AAAAAAAAAAA=", BF_HASH_SCHEME},
			{"bloom:v1:h2:m18:k3:AAAAAAAAAAA=", BF_BLOCK_SHAPE},
			{"bloom:v1:h257:m18:k3:AAAAAAAAAAA=", BF_HASH_SCHEME},
			{"bloom:v1:h18446744073709551617:m18:k3:AAAAAAAAAAA=", BF_HASH_SCHEME},
			{"bloom:v1:h1:m18:k0:AAAAAAAAAAA=", BF_K_RANGE},
			{"bloom:v1:h1:m18:k65:AAAAAAAAAAA=", BF_K_RANGE},
			{"bloom:v1:h1:m18:k259:AAAAAAAAAAA=", BF_K_RANGE},	/* 259 = 3 mod 256 */
			{"bloom:v1:h1:m18:k18446744073709551619:AAAAAAAAAAA=", BF_K_RANGE},
			{"bloom:v1:h1:m0:k3:AAAAAAAAAAA=", BF_M_RANGE},
			{"bloom:v1:h1:m8589934401:k3:AAAAAAAAAAA=", BF_TOO_LARGE},
			{"bloom:v1:h1:m18446744073709551615:k3:AAAAAAAAAAA=", BF_TOO_LARGE},
			{"bloom:v1:h1:m18446744073709551616:k3:AAAAAAAAAAA=", BF_TOO_LARGE},	/* 2^64 */
			{"bloom:v1:h1:m18446744073709551634:k3:AAAAAAAAAAA=", BF_TOO_LARGE},	/* 2^64 + 18 */
			{"bloom:v1:h1:m999999999999999999999999999999:k3:AAAAAAAAAAA=", BF_TOO_LARGE},
			{"bloom:v1:h1:m18:k3:", BF_LENGTH},	/* payload length */
			{"bloom:v1:h1:m18:k3:AAAAAAAA", BF_LENGTH},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=AAAA", BF_LENGTH},
			{"bloom:v1:h1:m64:k3:AAAAAAAAAAA=", BF_OK},
			{"bloom:v1:h1:m65:k3:AAAAAAAAAAA=", BF_LENGTH},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA", BF_BASE64},	/* base64 */
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=A", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAA==", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAAA", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAB=", BF_BASE64},	/* unused bits */
			{"bloom:v1:h1:m18:k3:AAAAAA AAAA=", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=\n", BF_BASE64},
			{"bloom:v1:h1:m18:k3:AAAAAAAAAAA=\n\n\n\n", BF_LENGTH},
			{"bloom:v1:h1:m18:k3:AAAEAAAAAAA=", BF_PADDING_BITS},	/* bit 18 */
			{"bloom:v1:h1:m18:k3:AAACAAAAAAA=", BF_OK},	/* bit 17 */
			{"bloom:v1:h1:m18:k3:AAAAAAAAAIA=", BF_PADDING_BITS},	/* bit 63 */
			{"bloom:v1:h1:m64:k3:AAAAAAAAAIA=", BF_OK},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			BloomHeader header;
			uint8_t    *bits;
			bf_status	status = text_decode(cases[i].text, strlen(cases[i].text), &header, &bits);

			if (status != cases[i].status)
				fprintf(stderr, "    text: \"%s\"\n", cases[i].text);
			CHECK_STATUS(status, cases[i].status);
			free(bits);
		}
	}

	/* every proper prefix of a valid text form is rejected */
	{
		const char *valid = "bloom:v1:h1:m100:k3:AABAAGABIAsEAAAEBgAAAA==";
		bool		all_rejected = true;

		for (size_t len = 0; len < strlen(valid); len++)
		{
			BloomHeader header;
			uint8_t    *bits;

			all_rejected &= text_decode(valid, len, &header, &bits) != BF_OK;
			free(bits);
		}
		CHECK(all_rejected);
	}
}

/* ---- binary form ---- */

static bf_status
binary_decode_exact(const uint8_t *data, size_t len, BloomHeader *header)
{
	uint8_t    *copy = exact_copy(data, len);
	const uint8_t *bits;
	bf_status	status = bf_binary_decode(copy, len, header, &bits);

	if (status == BF_OK)
		CHECK(bits == copy + BF_BINARY_HEADER_BYTES);
	else
		CHECK(bits == NULL);
	free(copy);
	return status;
}

static void
test_binary_form(void)
{
	/* m = 18: header bytes, big-endian m, then 8 bytes of bits */
	uint8_t		valid[BF_BINARY_HEADER_BYTES + 8] = {0};
	uint8_t		form[BF_BINARY_HEADER_BYTES + 16];
	BloomHeader header;

	bf_binary_encode_header(&valid_header, valid);
	CHECK(memcmp(valid, "\x01\x01\x03\x00\x00\x00\x00\x00\x00\x00\x00\x12", 12) == 0);
	valid[BF_BINARY_HEADER_BYTES + 2] = 0x02;	/* bit 17, the last one */
	CHECK_STATUS(binary_decode_exact(valid, sizeof(valid), &header), BF_OK);
	CHECK(header_equal(&header, &valid_header));

	{
		BloomHeader big = {1, 1, 7, 0, 0x0102030405060708};

		bf_binary_encode_header(&big, form);
		CHECK(memcmp(form, "\x01\x01\x07\x00\x01\x02\x03\x04\x05\x06\x07\x08", 12) == 0);
	}

	/* round trips */
	{
		bool		ok = true;

		for (int trial = 0; trial < 300; trial++)
		{
			BloomHeader h = {1, 1, (uint8_t) (1 + rng_next() % 64), 0, 1 + rng_next() % 100000};
			size_t		nbytes = (size_t) bloom_payload_bytes(h.m);
			uint8_t    *data = xmalloc(BF_BINARY_HEADER_BYTES + nbytes);
			BloomHeader decoded;

			bf_binary_encode_header(&h, data);
			memset(data + BF_BINARY_HEADER_BYTES, 0, nbytes);
			for (int i = 0; i < 50; i++)
				bf_add_hash(data + BF_BINARY_HEADER_BYTES, h.m, h.k, (bf_hash) {rng_next(), rng_next()});
			ok &= binary_decode_exact(data, BF_BINARY_HEADER_BYTES + nbytes, &decoded) == BF_OK;
			ok &= header_equal(&decoded, &h);
			free(data);
		}
		CHECK(ok);
	}

	/* every truncation, then each field wrong in turn */
	for (size_t len = 0; len < sizeof(valid); len++)
		CHECK_STATUS(binary_decode_exact(valid, len, &header), BF_LENGTH);
	{
		static const struct
		{
			size_t		offset;
			uint8_t		value;
			bf_status	status;
		}			cases[] = {
			{0, 0, BF_FORMAT_VERSION},
			{0, 2, BF_FORMAT_VERSION},
			{0, 0xff, BF_FORMAT_VERSION},
			{1, 0, BF_HASH_SCHEME},
			{1, 3, BF_HASH_SCHEME},
			{1, 2, BF_BLOCK_SHAPE},	/* m = 18 */
			{2, 0, BF_K_RANGE},
			{2, 65, BF_K_RANGE},
			{2, 0xff, BF_K_RANGE},
			{3, 1, BF_FLAGS},
			{3, 0x80, BF_FLAGS},
			{4, 0x01, BF_TOO_LARGE},	/* m's most significant byte */
			{7, 0x02, BF_TOO_LARGE},	/* m = 2^33 + 18 > BLOOM_M_MAX */
			{8, 0x01, BF_LENGTH},	/* m = 2^24 + 18: bit array too short */
			{11, 0x00, BF_M_RANGE},	/* m = 0 */
			{11, 0x40, BF_OK},	/* m = 64 */
			{11, 0x41, BF_LENGTH},	/* m = 65 needs 16 bytes */
			{11, 0x11, BF_PADDING_BITS},	/* m = 17: the set bit 17 is padding */
			{BF_BINARY_HEADER_BYTES + 2, 0x04, BF_PADDING_BITS},	/* bit 18 */
			{BF_BINARY_HEADER_BYTES + 7, 0x80, BF_PADDING_BITS},	/* bit 63 */
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			uint8_t		data[sizeof(valid)];

			memcpy(data, valid, sizeof(valid));
			data[cases[i].offset] = cases[i].value;
			CHECK_STATUS(binary_decode_exact(data, sizeof(data), &header), cases[i].status);
		}
	}

	/* m written little-endian is a different, too-large m */
	{
		uint8_t		data[sizeof(valid)];

		memcpy(data, valid, sizeof(valid));
		memset(data + 4, 0, 8);
		data[4] = 18;
		CHECK_STATUS(binary_decode_exact(data, sizeof(data), &header), BF_TOO_LARGE);
	}

	/* extra bytes */
	memset(form, 0, sizeof(form));
	memcpy(form, valid, sizeof(valid));
	CHECK_STATUS(binary_decode_exact(form, sizeof(valid) + 1, &header), BF_LENGTH);
	CHECK_STATUS(binary_decode_exact(form, sizeof(valid) + 8, &header), BF_LENGTH);
}

/* ---- self-sizing filters ---- */

/* hashes of the int8 values first .. first + n - 1 */
static void
add_range(uint8_t *bits, uint64_t m, uint32_t k, int64_t first, int64_t n)
{
	for (int64_t key = first; key < first + n; key++)
		bf_add_hash(bits, m, k, hash_int64(key));
}

static void
test_auto_shape(void)
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
static void
test_fold(void)
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

static void
test_hashset(void)
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

static void
test_auto_exact(void)
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
static void
test_auto_ladder(void)
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
 * The sketch phase with a small sketch (M = 15 * 2^12 bits at p = 0.01,
 * k = 7): the chosen size is the filter built directly, within 1.5 times
 * optimal while it is at most M / 3; between M / 3 and M the target still
 * holds; past M (about 6270 values) there is no size, and the SQL layer
 * raises its error.
 */
static void
test_auto_sketch(void)
{
	static const int64_t sizes[] = {200, 1000, 2000, 4000, 5000, 6000, 7000, 20000};
	const uint64_t sketch_m = 15 * 4096;
	const double p = 0.01;
	const uint32_t k = 7;
	size_t		sketch_bytes = (size_t) bloom_payload_bytes(sketch_m);
	uint8_t    *sketch = xmalloc(sketch_bytes);

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
		bf_optimal_shape(p, n, &optimal_m, &optimal_k);
		if (n > 6500)
		{
			CHECK_U64(m, 0);
			continue;
		}
		if (!CHECK(m != 0))
			continue;
		{
			size_t		nbytes = (size_t) bloom_payload_bytes(m);
			uint8_t    *direct = xmalloc(nbytes);
			uint8_t    *folded = xmalloc(nbytes);

			memset(direct, 0, nbytes);
			add_range(direct, m, k, 1, n);
			bf_fold(sketch, sketch_m, folded, m);
			CHECK(memcmp(direct, folded, nbytes) == 0);
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
	free(sketch);
}

/* ---- the same answer on every machine ---- */

static bf_real
real_of(double hi, double lo)
{
	return bf_real_add(bf_real_from_double(hi), bf_real_from_double(lo));
}

/* |a - b| <= units 2^-64 |b| */
static bool
real_close(bf_real a, bf_real b, uint64_t units)
{
	bf_real		error = bf_real_sub(a, b);

	error.negative = false;
	b.negative = false;
	return bf_real_le(error, bf_real_mul(b, bf_real_mul(bf_real_from_u64(units),
														bf_real_from_double(0x1p-64))));
}

/*
 * bf_real: its functions against values computed apart from this code
 * (python3's decimal module at 60 digits, written as the double nearest and
 * the double nearest the rest), to 16 units of 2^-64 (x^e, by repeated
 * squaring, to 2e units); then the bits of a sequence of operations,
 * pinned: they must come out the same on every machine.
 */
static void
test_real(void)
{
	static const struct
	{
		const char *what;
		int			function;	/* 0 log, 1 log1p, 2 exp, 3 expm1, 4 sqrt, 5 pow */
		double		x;
		uint32_t	e;
		double		hi;
		double		lo;
	}			cases[] = {
		{"log 0.01", 0, 0.01, 0, -0x1.26bb1bbb55515p+2, -0x1.f3752b6b15c17p-52},
		{"log 3", 0, 3.0, 0, 0x1.193ea7aad030bp+0, -0x1.a256f99caabebp-54},
		{"log 1e-300", 0, 1e-300, 0, -0x1.5963447f87fb5p+9, -0x1.aa670d35324e6p-46},
		{"log1p -1e-12", 1, -1e-12, 0, -0x1.19799812df3bdp-40, 0x1.eb32bb1959001p-96},
		{"log1p 0.3", 1, 0.3, 0, 0x1.0ca937be1b9dcp-2, -0x1.28637a1723644p-56},
		{"exp -0.5", 2, -0.5, 0, 0x1.368b2fc6f960ap-1, -0x1.85314b9559e64p-61},
		{"exp 40.25", 2, 40.25, 0, 0x1.0c71922974cbfp+58, -0x1.12bd3048e3e2fp+2},
		{"expm1 1e-10", 3, 1e-10, 0, 0x1.b7cdfd9dda4e3p-34, 0x1.0c95a385d91c6p-88},
		{"expm1 -0.2", 3, -0.2, 0, -0x1.733d4a7a67a9bp-3, 0x1.eebc3ad865dfcp-61},
		{"sqrt 2", 4, 2.0, 0, 0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54},
		{"sqrt 1e-5", 4, 1e-5, 0, 0x1.9e7c6e43390b7p-9, 0x1.3c095e6621a1dp-64},
		{"(511/512)^7", 5, 511.0 / 512.0, 7, 0x1.f90a77445eb03p-1, 0x1.ff00000000000p-55},
		{"0.99^1000", 5, 0.99, 1000, 0x1.6a258c41be10ep-15, 0x1.6ba32ece61595p-70},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		bf_real		x = bf_real_from_double(cases[i].x);
		bf_real		result;

		switch (cases[i].function)
		{
			case 0:
				result = bf_real_log(x);
				break;
			case 1:
				result = bf_real_log1p(x);
				break;
			case 2:
				result = bf_real_exp(x);
				break;
			case 3:
				result = bf_real_expm1(x);
				break;
			case 4:
				result = bf_real_sqrt(x);
				break;
			default:
				result = bf_real_pow_u32(x, cases[i].e);
				break;
		}
		if (!CHECK(real_close(result, real_of(cases[i].hi, cases[i].lo),
							  cases[i].function == 5 ? 2 * (uint64_t) cases[i].e : 16)))
			fprintf(stderr, "    %s: %.17g\n", cases[i].what, bf_real_to_double(result));
	}

	/* exact: conversions, 1/3 rounded to nearest, ln 2 = log 2, rounding to integers */
	CHECK(bf_real_to_double(bf_real_from_double(0x1.23456789abcdep-1000)) == 0x1.23456789abcdep-1000);
	CHECK(bf_real_to_double(bf_real_from_double(4.9406564584124654e-324)) == 4.9406564584124654e-324);
	CHECK_U64(bf_real_div(bf_real_from_u64(1), bf_real_from_u64(3)).mantissa,
			  UINT64_C(0xaaaaaaaaaaaaaaab));
	CHECK(bf_real_cmp(bf_real_log(bf_real_from_u64(2)), bf_real_ln2) == 0);
	CHECK(bf_real_cmp(bf_real_log(bf_real_from_u64(1)), bf_real_from_u64(0)) == 0);
	CHECK(bf_real_cmp(bf_real_exp(bf_real_from_u64(0)), bf_real_from_u64(1)) == 0);
	CHECK(bf_real_cmp(bf_real_sub(bf_real_from_double(0.1), bf_real_from_double(0.1)),
					  bf_real_from_u64(0)) == 0);
	{
		static const struct
		{
			double		x;
			double		floor_x,
						ceil_x,
						round_x;
		}			rounding[] = {
			{0.5, 0, 1, 1}, {1.5, 1, 2, 2}, {2.5, 2, 3, 3}, {-0.5, -1, -0.0, -1},
			{-2.5, -3, -2, -3}, {3.0, 3, 3, 3}, {1e-30, 0, 1, 0}, {4.4, 4, 5, 4},
			{0x1p70, 0x1p70, 0x1p70, 0x1p70},
		};

		for (size_t i = 0; i < sizeof(rounding) / sizeof(rounding[0]); i++)
		{
			bf_real		x = bf_real_from_double(rounding[i].x);

			CHECK(bf_real_to_double(bf_real_floor(x)) == rounding[i].floor_x);
			CHECK(bf_real_to_double(bf_real_ceil(x)) == rounding[i].ceil_x);
			CHECK(bf_real_to_double(bf_real_round(x)) == rounding[i].round_x);
		}
		CHECK_U64(bf_real_to_u64(bf_real_from_double(0x1p70)), UINT64_MAX);
		CHECK_U64(bf_real_to_u64(bf_real_from_double(-3.0)), 0);
		CHECK_U64(bf_real_to_u64(bf_real_from_u64(UINT64_MAX - 1)), UINT64_MAX - 1);
	}

	/* 20000 random operations of each kind, their bits folded into one number */
	{
		uint64_t	digest = UINT64_C(1469598103934665603);
		uint64_t	saved = rng_state;

		rng_state = 42;
		for (int i = 0; i < 20000; i++)
		{
			/* one draw a statement: the order of a call's arguments is unspecified */
			double		a = (double) (rng_next() >> 11) * 0x1p-53 + 0.5;
			double		b = (double) (rng_next() >> 11) * 0x1p-53 + 0.5;
			bf_real		ra,
						rb;
			bf_real		results[8];
			uint32_t	e;

			a = ldexp(a, (int) (rng_next() % 200) - 100);
			b = ldexp(b, (int) (rng_next() % 200) - 100);
			ra = bf_real_from_double(rng_next() % 2 ? a : -a);
			rb = bf_real_from_double(b);
			e = (uint32_t) (rng_next() % 70);

			results[0] = bf_real_add(ra, rb);
			results[1] = bf_real_mul(ra, rb);
			results[2] = bf_real_div(ra, rb);
			results[3] = bf_real_log(rb);
			results[4] = bf_real_exp(bf_real_from_double(fmod(a, 50.0)));
			results[5] = bf_real_expm1(bf_real_from_double(fmod(a, 1.0)));
			results[6] = bf_real_sqrt(rb);
			results[7] = bf_real_pow_u32(rb, e);
			for (int r = 0; r < 8; r++)
			{
				digest = (digest ^ results[r].mantissa) * UINT64_C(1099511628211);
				digest = (digest ^ (uint64_t) (int64_t) results[r].exponent) * UINT64_C(1099511628211);
				digest = (digest ^ results[r].negative) * UINT64_C(1099511628211);
			}
		}
		rng_state = saved;
		CHECK_U64(digest, UINT64_C(0xe0c5789745732a55));
	}
}

/*
 * Golden shapes: what bloom_empty(p, n) and bloom_optimal(p, n) give (m, k,
 * hash scheme), and the k and sketch size of self-sized filters at p.  They
 * are decided in bf_real, so they must hold on every machine.  The last
 * rows are rates chosen so that the quantity decided on is within about
 * 1e-16 of the boundary: -n ln p / (ln 2)^2 of an integer, or log2(1/p) of
 * a half-integer (the doubles nearest 2^-6.5 and 2^-13.5, and the next
 * ones), where double arithmetic gives different answers on different
 * machines and C libraries.
 */
static void
test_golden_shapes(void)
{
	static const struct
	{
		double		p;
		int64_t		n;
		bf_status	status;
		uint64_t	m;
		uint32_t	k;
		uint8_t		scheme;
	}			shapes[] = {
		{0.5, 1, BF_OK, 2, 1, 1},
		{0.5, 1000, BF_OK, 1443, 1, 1},
		{0.5, 100000, BF_OK, 144270, 1, 1},
		{0.5, 3000000, BF_OK, 4328086, 1, 1},
		{0.5, 10000000, BF_OK, 14426951, 1, 1},
		{0.5, 1000000000, BF_OK, 1442695168, 1, 2},
		{0.1, 1, BF_OK, 5, 3, 1},
		{0.1, 1000, BF_OK, 4793, 3, 1},
		{0.1, 100000, BF_OK, 479253, 3, 1},
		{0.1, 3000000, BF_OK, 14377588, 3, 1},
		{0.1, 10000000, BF_OK, 48315904, 3, 2},
		{0.1, 1000000000, BF_OK, 4831541248, 3, 2},
		{0.05, 1, BF_OK, 7, 5, 1},
		{0.05, 1000, BF_OK, 6236, 4, 1},
		{0.05, 100000, BF_OK, 623523, 4, 1},
		{0.05, 3000000, BF_OK, 18931712, 4, 2},
		{0.05, 10000000, BF_OK, 63105024, 4, 2},
		{0.05, 1000000000, BF_OK, 6310490624, 4, 2},
		{0.01, 1, BF_OK, 10, 7, 1},
		{0.01, 1000, BF_OK, 9586, 7, 1},
		{0.01, 100000, BF_OK, 958506, 7, 1},
		{0.01, 3000000, BF_OK, 29687808, 6, 2},
		{0.01, 10000000, BF_OK, 98959360, 6, 2},
		{0.01, 1000000000, BF_TOO_LARGE, 9585058378, 7, 0},
		{0.001, 1, BF_OK, 15, 10, 1},
		{0.001, 1000, BF_OK, 14378, 10, 1},
		{0.001, 100000, BF_OK, 1437759, 10, 1},
		{0.001, 3000000, BF_OK, 46465024, 9, 2},
		{0.001, 10000000, BF_OK, 154883584, 9, 2},
		{0.001, 1000000000, BF_TOO_LARGE, 14377587567, 10, 0},
		{1e-4, 1, BF_OK, 20, 14, 1},
		{1e-4, 1000, BF_OK, 19171, 13, 1},
		{1e-4, 100000, BF_OK, 1917012, 13, 1},
		{1e-4, 3000000, BF_OK, 57510351, 13, 1},
		{1e-4, 10000000, BF_OK, 191701168, 13, 1},
		{1e-4, 1000000000, BF_TOO_LARGE, 19170116755, 13, 0},
		{1e-6, 1, BF_OK, 29, 20, 1},
		{1e-6, 1000, BF_OK, 28756, 20, 1},
		{1e-6, 100000, BF_OK, 2875518, 20, 1},
		{1e-6, 3000000, BF_OK, 86265526, 20, 1},
		{1e-6, 10000000, BF_OK, 287551752, 20, 1},
		{1e-6, 1000000000, BF_TOO_LARGE, 28755175133, 20, 0},
		{1e-19, 1, BF_OK, 92, 64, 1},
		{1e-19, 1000, BF_OK, 91059, 63, 1},
		{1e-19, 100000, BF_OK, 9105806, 63, 1},
		{1e-19, 3000000, BF_OK, 273174164, 63, 1},
		{1e-19, 10000000, BF_OK, 910580546, 63, 1},
		{1e-19, 1000000000, BF_TOO_LARGE, 91058054585, 63, 0},
		{0x1p-64, 1, BF_OK, 93, 64, 1},
		{0x1p-64, 1000, BF_OK, 92333, 64, 1},
		{0x1p-64, 100000, BF_OK, 9233249, 64, 1},
		{0x1p-64, 3000000, BF_OK, 276997448, 64, 1},
		{0x1p-64, 10000000, BF_OK, 923324827, 64, 1},
		{0x1p-64, 1000000000, BF_TOO_LARGE, 92332482617, 64, 0},
		/* near a boundary (see above) */
		{1.588048882610672e-05, 1, BF_OK, 23, 16, 1},
		{0.20625720285464644, 7, BF_OK, 24, 2, 1},
		{0.09051270335250715, 2, BF_OK, 11, 4, 1},
		{0.025135524701904017, 3, BF_OK, 24, 6, 1},
		{0.005067117552663318, 1, BF_OK, 12, 8, 1},
		{1.108486073939949e-07, 3, BF_OK, 100, 23, 1},
		{9.307286767272172e-21, 1, BF_K_RANGE, 96, 67, 0},
	};
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

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
	{
		uint64_t	m;
		uint32_t	k;
		uint8_t		scheme = 0;
		bf_status	status = bf_default_shape(shapes[i].p, shapes[i].n, &m, &k, &scheme);

		if (!CHECK(status == shapes[i].status && m == shapes[i].m && k == shapes[i].k &&
				   (status != BF_OK || scheme == shapes[i].scheme)))
			fprintf(stderr, "    p = %.17g, n = %" PRId64 ": %s, m = %" PRIu64 ", k = %u, scheme %u\n",
					shapes[i].p, shapes[i].n, status_name(status), m, k, scheme);
	}
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

/* XXH3-64 of a filter's bit array */
static uint64_t
bits_digest(const uint8_t *bits, uint64_t m)
{
	return XXH3_64bits(bits, (size_t) bloom_payload_bytes(m));
}

/* a filter of the int8 values first .. first + n - 1, through bf_add or a pipelined bf_adder */
static uint8_t *
build_filter(uint64_t m, uint32_t k, uint8_t scheme, int64_t first, int64_t n, bool pipelined)
{
	static bf_adder adder;
	uint8_t    *bits = xmalloc((size_t) bloom_payload_bytes(m));

	memset(bits, 0, (size_t) bloom_payload_bytes(m));
	bf_adder_init(&adder, bits, m, k, scheme);
	adder.pipelined = pipelined;
	for (int64_t key = first; key < first + n; key++)
	{
		if (pipelined)
			bf_adder_add(&adder, hash_int64(key));
		else
			bf_add(bits, m, k, scheme, hash_int64(key));
	}
	bf_adder_flush(&adder);
	return bits;
}

/*
 * Golden filters: the same values give the same bytes on every machine,
 * little- or big-endian, whichever path sets or combines the bits.  Each
 * digest is XXH3-64 of the bit array, computed on x86-64.
 */
static void
test_golden_filters(void)
{
	const uint64_t m = 958506;
	const size_t nbytes = (size_t) bloom_payload_bytes(m);
	uint8_t    *a,
			   *b,
			   *combined;

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

	/* union and intersection */
	a = build_filter(m, 7, BLOOM_HASH_XXH3_EDH, 0, 100000, false);
	b = build_filter(m, 7, BLOOM_HASH_XXH3_EDH, 50000, 100000, false);
	combined = xmalloc(nbytes);
	bf_or(combined, a, b, nbytes);
	CHECK_U64(bits_digest(combined, m), UINT64_C(0x9f8fd475ef910512));
	bf_and(combined, a, b, nbytes);
	CHECK_U64(bits_digest(combined, m), UINT64_C(0x90e9dce94e960609));
	free(a);
	free(b);
	free(combined);

	/* folds of a filter of 15 * 2^16 bits */
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

	/* self-sized: the exact phase at three rates, and a (small) sketch folded */
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
}

/*
 * Every path that walks a value's probes agrees with bf_probe_positions, on
 * random shapes of both schemes: the two iterators; bf_add and the scheme's
 * own add (bf_add_hash, bf_block_set); bf_contains, the branch-free test
 * the executor and the planner share, and the scheme's own (bf_contains_hash,
 * bf_block_test); the adder, pipelined and direct.  bf_probe_positions is
 * in turn held to the formulas written out here (core_probe.h).  contains
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

static void
test_probe_paths(void)
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

int
main(void)
{
	test_status_messages();
	test_check_shape();
	test_optimal_shape();
	test_check_header();
	test_check_bits();
	test_hash_golden();
	test_probe_sequence();
	test_adder();
	test_blocked_golden();
	test_blocked_probes();
	test_blocked_shape();
	test_array_operations();
	test_estimates();
	test_expected_false_positive_rate();
	test_base64();
	test_text_form();
	test_binary_form();
	test_false_positive_rate();
	test_cardinality_estimate();
	test_blocked_accuracy();
	test_auto_shape();
	test_fold();
	test_hashset();
	test_auto_exact();
	test_auto_ladder();
	test_auto_sketch();
	test_real();
	test_golden_shapes();
	test_golden_filters();
	test_probe_paths();

	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
