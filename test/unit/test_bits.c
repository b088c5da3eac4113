/*
 * test_bits.c: unit tests of the whole-array kernels (popcount, OR, AND and
 * their interrupt strides), and the golden union and intersection.
 */
#include "harness.h"

static bool
naive_test_bit(const uint8_t *bits, uint64_t i)
{
	return (bits[i / 8] >> (i % 8)) & 1;
}

UNIT_TEST(array_operations)
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

/*
 * Golden filters combined: the union and the intersection of two scheme 1
 * filters give the same bytes on every machine.  Each digest is XXH3-64 of
 * the bit array, computed on x86-64.
 */
UNIT_TEST(golden_combined)
{
	const uint64_t m = 958506;
	const size_t nbytes = (size_t) bloom_payload_bytes(m);
	uint8_t    *a,
			   *b,
			   *combined;

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
}

/*
 * The sparse form: for arrays of several sizes (a partial last block
 * included) and fills (empty, a few percent, dense, full), its length is
 * one mask per block and one byte per nonzero byte, it is well formed, and ORing it into an array
 * gives that array ORed with the original; damaged forms are refused.
 */
/* Little-endian words whatever the host, and a golden sparse form (its masks are such words). */
UNIT_TEST(little_endian_words)
{
	static const uint8_t bytes[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
	uint8_t		out[8];
	uint8_t		bits[72] = {0};
	uint8_t		form[128];
	static const uint8_t golden[] = {
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,	/* bytes 0 and 63 of block 0 */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* byte 1 of block 1 */
		0x11, 0x22, 0x33};

	CHECK_U64(bf_load_le64(bytes), UINT64_C(0x8807060504030201));
	bf_store_le64(out, UINT64_C(0x8807060504030201));
	CHECK(memcmp(out, bytes, 8) == 0);
	bits[0] = 0x11;
	bits[63] = 0x22;
	bits[65] = 0x33;
	CHECK_U64(bf_sparse_encode(bits, sizeof(bits), form), sizeof(golden));
	CHECK(memcmp(form, golden, sizeof(golden)) == 0);
}

UNIT_TEST(sparse_form)
{
	static const size_t sizes[] = {0, 8, 56, 64, 72, 1000, 4096 + 24, (1 << 20) + 40};
	static const unsigned fills[] = {0, 5, 30, 100};	/* percent of bits, about */
	bool		size_ok = true,
				check_ok = true,
				or_ok = true,
				refused_ok = true;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t f = 0; f < sizeof(fills) / sizeof(fills[0]); f++)
		{
			size_t		nbytes = sizes[s];
			uint8_t    *bits = xmalloc(nbytes + 1);
			uint8_t    *other = xmalloc(nbytes + 1);
			uint8_t    *expected = xmalloc(nbytes + 1);
			uint8_t    *form;
			size_t		length;

			for (size_t i = 0; i < nbytes; i++)
			{
				bits[i] = 0;
				for (unsigned b = 0; b < 8; b++)
					if (rng_next() % 100 < fills[f])
						bits[i] |= (uint8_t) (1u << b);
				other[i] = (uint8_t) rng_next();
				expected[i] = bits[i] | other[i];
			}
			form = xmalloc(bf_sparse_bound(nbytes) + 1);
			length = bf_sparse_encode(bits, nbytes, form);
			{
				size_t		nonzero = 0;

				for (size_t i = 0; i < nbytes; i++)
					nonzero += bits[i] != 0;
				size_ok &= length == (nbytes + 63) / 64 * 8 + nonzero;
			}
			check_ok &= bf_sparse_check(form, length, nbytes);
			bf_sparse_or_into(other, nbytes, form);
			or_ok &= memcmp(other, expected, nbytes) == 0;

			/* one byte short, one too many, a mask bit past the end */
			if (length > 0)
				refused_ok &= !bf_sparse_check(form, length - 1, nbytes);
			refused_ok &= !bf_sparse_check(form, length + 1, nbytes);
			if (nbytes % 64 != 0)
			{
				uint8_t    *bad = xmalloc(length + 1);
				uint64_t	last;
				size_t		at = (nbytes + 63) / 64 * 8 - 8;

				memcpy(bad, form, length);
				last = bf_load_le64(bad + at) | UINT64_C(1) << 63;
				bf_store_le64(bad + at, last);
				bad[length] = 1;
				refused_ok &= !bf_sparse_check(bad, length + 1, nbytes);
				free(bad);
			}
			free(bits);
			free(other);
			free(expected);
			free(form);
		}
	CHECK(size_ok);
	CHECK(check_ok);
	CHECK(or_ok);
	CHECK(refused_ok);
}
