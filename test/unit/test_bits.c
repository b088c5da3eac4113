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
 * the shorter form's (gaps: their encodings and one byte per nonzero byte;
 * masks: one per block and one byte per nonzero byte), it is well formed,
 * and ORing it into an array gives that array ORed with the original;
 * damaged forms are refused.
 */
/* Little-endian words whatever the host, and golden sparse forms of both kinds. */
UNIT_TEST(little_endian_words)
{
	static const uint8_t bytes[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};
	uint8_t		out[8];
	uint8_t		bits[72] = {0};
	uint8_t		form[128];
	uint8_t		far[300] = {0};
	static const uint8_t golden[] = {
		BF_SPARSE_GAPS,
		0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* three bytes */
		0x00, 0x11,				/* byte 0 */
		0x3e, 0x22,				/* 62 bytes later: byte 63 */
		0x01, 0x33};			/* byte 65 */
	static const uint8_t golden_far[] = {
		BF_SPARSE_GAPS, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xc8, 0x01, 0x80};		/* byte 200 */
	static const uint8_t golden_masks[] = {
		BF_SPARSE_MASKS,
		0xff, 0xff, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,	/* bytes 0 to 16 of block 0 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* none of block 1 */
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};

	CHECK_U64(bf_load_le64(bytes), UINT64_C(0x8807060504030201));
	bf_store_le64(out, UINT64_C(0x8807060504030201));
	CHECK(memcmp(out, bytes, 8) == 0);
	bits[0] = 0x11;
	bits[63] = 0x22;
	bits[65] = 0x33;
	CHECK_U64(bf_sparse_encode(bits, sizeof(bits), form), sizeof(golden));
	CHECK(memcmp(form, golden, sizeof(golden)) == 0);
	far[200] = 0x80;
	CHECK_U64(bf_sparse_encode(far, sizeof(far), form), sizeof(golden_far));
	CHECK(memcmp(form, golden_far, sizeof(golden_far)) == 0);
	/* 8 + 17 bytes of count and gaps where the masks take 16: the masks */
	memset(bits, 0, sizeof(bits));
	for (int i = 0; i < 17; i++)
		bits[i] = (uint8_t) (i + 1);
	CHECK_U64(bf_sparse_encode(bits, sizeof(bits), form), sizeof(golden_masks));
	CHECK(memcmp(form, golden_masks, sizeof(golden_masks)) == 0);
}

/* Gaps forms that are not well formed: each is refused. */
UNIT_TEST(sparse_gaps_refused)
{
	/* after the kind and the count */
	static const struct
	{
		const char *what;
		uint64_t	count;
		uint8_t		pairs[12];
		size_t		length;
	}			bad[] = {
		{"a zero byte", 1, {0x00, 0x00}, 2},
		{"a gap with no byte", 1, {0x05}, 1},
		{"the last byte's offset, plus one", 1, {0x64, 0x01}, 2},
		{"two bytes past the end", 2, {0x63, 0x01, 0x00, 0x01}, 4},
		{"a needless high zero byte", 1, {0x81, 0x00, 0x01}, 3},
		{"a gap cut short", 1, {0x81}, 1},
		{"a gap of more than 64 bits", 1,
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x01}, 11},
		{"a count too high: cut between two bytes", 2, {0x00, 0x01}, 2},
		{"a count too low", 1, {0x00, 0x01, 0x00, 0x01}, 4},
		{"a count with no bytes", 1, {0}, 0},
	};
	static const uint8_t good[] = {
		BF_SPARSE_GAPS, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x01, 0x62, 0x80};	/* bytes 0 and 99 */
	static const uint8_t unknown_kind[] = {2, 0, 0, 0, 0, 0, 0, 0, 0};
	uint8_t		bits[100] = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		uint8_t		form[1 + 8 + 12];

		form[0] = BF_SPARSE_GAPS;
		bf_store_le64(form + 1, bad[i].count);
		memcpy(form + 9, bad[i].pairs, bad[i].length);
		if (bf_sparse_check(form, 9 + bad[i].length, 100))
			printf("  accepted: %s\n", bad[i].what);
		CHECK(!bf_sparse_check(form, 9 + bad[i].length, 100));
	}
	CHECK(!bf_sparse_check(unknown_kind, sizeof(unknown_kind), 100));
	CHECK(!bf_sparse_check(good, 0, 100));
	CHECK(!bf_sparse_check(good, 5, 100));
	CHECK(bf_sparse_check(good, sizeof(good), 100));
	CHECK(!bf_sparse_check(good, sizeof(good), 99));
	bf_sparse_or_into(bits, sizeof(bits), good, sizeof(good));
	CHECK(bits[0] == 0x01 && bits[99] == 0x80 && bf_popcount(bits, sizeof(bits)) == 2);
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
				size_t		gap_bytes = 8;	/* the count */
				size_t		last = 0;
				size_t		masks = (nbytes + 63) / 64 * 8;

				for (size_t i = 0; i < nbytes; i++)
					if (bits[i] != 0)
					{
						nonzero++;
						for (size_t gap = i - last; gap >= 128; gap >>= 7)
							gap_bytes++;
						gap_bytes++;
						last = i + 1;
					}
				size_ok &= length <= bf_sparse_bound(nbytes);
				if (gap_bytes <= masks)
					size_ok &= form[0] == BF_SPARSE_GAPS && length == 1 + gap_bytes + nonzero;
				else
					size_ok &= form[0] == BF_SPARSE_MASKS && length == 1 + masks + nonzero;
			}
			check_ok &= bf_sparse_check(form, length, nbytes);
			bf_sparse_or_into(other, nbytes, form, length);
			or_ok &= memcmp(other, expected, nbytes) == 0;

			/* one byte short, one too many, an unknown kind */
			refused_ok &= !bf_sparse_check(form, length - 1, nbytes);
			form[length] = 1;
			refused_ok &= !bf_sparse_check(form, length + 1, nbytes);
			form[0] ^= 2;
			refused_ok &= !bf_sparse_check(form, length, nbytes);
			form[0] ^= 2;
			if (form[0] == BF_SPARSE_MASKS && nbytes % 64 != 0)
			{
				/* a mask bit past the end */
				uint8_t    *bad = xmalloc(length + 1);
				uint64_t	last;
				size_t		at = 1 + (nbytes + 63) / 64 * 8 - 8;

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

/* Bit-slicing against the definition, at every column offset and odd sizes. */
UNIT_TEST(slice_rows)
{
	static const uint64_t ms[] = {1, 63, 64, 65, 959, 1024};
	static const uint32_t columns[] = {0, 1, 63, 64, 100, 190};
	static const uint32_t counts[] = {1, 7, 64, 65, 130};

	for (size_t a = 0; a < sizeof(ms) / sizeof(ms[0]); a++)
		for (size_t b = 0; b < sizeof(columns) / sizeof(columns[0]); b++)
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			{
				uint64_t	m = ms[a];
				uint32_t	column = columns[b];
				uint32_t	nrows = counts[c];
				uint32_t	slice_bytes = ((column + nrows + 63) / 64) * 8 + 8;
				size_t		payload = ((m + 63) / 64) * 8;
				uint8_t   **rows = xmalloc(nrows * sizeof(uint8_t *));
				uint8_t    *slices = xmalloc(m * slice_bytes);
				uint8_t    *before = xmalloc(m * slice_bytes);
				bool		same = true;

				rng_fill(slices, m * slice_bytes);
				memcpy(before, slices, m * slice_bytes);
				for (uint32_t j = 0; j < nrows; j++)
				{
					rows[j] = xmalloc(payload);
					rng_fill(rows[j], payload);
					/* no bit past m, as in a filter */
					for (uint64_t p = m; p < payload * 8; p++)
						rows[j][p / 8] &= (uint8_t) ~(1u << (p % 8));
				}
				bf_slice_rows((const uint8_t *const *) rows, nrows, column, m, slices, slice_bytes);
				for (uint64_t p = 0; p < m && same; p++)
					for (uint32_t r = 0; r < slice_bytes * 8; r++)
					{
						bool		was = naive_test_bit(before + p * slice_bytes, r);
						bool		is = naive_test_bit(slices + p * slice_bytes, r);
						bool		set = r >= column && r < column + nrows &&
							naive_test_bit(rows[r - column], p);

						if (is != (was || set))
						{
							same = false;
							break;
						}
					}
				CHECK(same);
				for (uint32_t j = 0; j < nrows; j++)
					free(rows[j]);
				free(rows);
				free(slices);
				free(before);
			}
}
