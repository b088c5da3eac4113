/*
 * test_real.c: unit tests of bf_real (real.c), the portable real arithmetic
 * that makes every sizing decision the same on every machine.
 */
#include "harness.h"
#include "core/real.h"

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
UNIT_TEST(real)
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
