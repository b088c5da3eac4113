/*
 * core/slices.c: bit-slicing, for the index over a column of filters
 * (index/index.h): the rows of a group of filters turned into one slice per
 * bit position, a 64-by-64 tile of bits at a time.
 */
#include "core/core.h"

/*
 * Transpose a 64-by-64 bit matrix in place: bit j of a[i] becomes bit i of
 * a[j].  Each round swaps the off-diagonal blocks of every block of twice
 * its size (Hacker's Delight, 7-3).
 */
static void
bf_transpose64(uint64_t a[64])
{
	uint64_t	mask = UINT64_C(0x00000000FFFFFFFF);

	for (int width = 32; width != 0; width >>= 1, mask ^= mask << width)
		for (int i = 0; i < 64; i = ((i | width) + 1) & ~width)
		{
			uint64_t	swap = ((a[i] >> width) ^ a[i | width]) & mask;

			a[i] ^= swap << width;
			a[i | width] ^= swap;
		}
}

void
bf_slice_rows(const uint8_t *const *rows, uint32_t nrows, uint32_t column, uint64_t m,
			  uint8_t *slices, uint32_t slice_bytes)
{
	uint64_t	tile[64];

	for (uint64_t first = 0; first < m; first += 64)
	{
		if (first % (UINT64_C(1) << 14) == 0)
			bf_check_interrupts();
		for (uint32_t block = column & ~UINT32_C(63); block < column + nrows; block += 64)
		{
			uint64_t	any = 0;

			for (uint32_t i = 0; i < 64; i++)
			{
				uint32_t	row = block + i;

				tile[i] = (row >= column && row < column + nrows) ?
					bf_load_le64(rows[row - column] + first / 8) : 0;
				any |= tile[i];
			}
			if (any == 0)
				continue;
			bf_transpose64(tile);
			for (uint32_t j = 0; j < 64 && first + j < m; j++)
			{
				uint8_t    *word = slices + (first + j) * slice_bytes + block / 8;

				if (tile[j] != 0)
					bf_store_le64(word, bf_load_le64(word) | tile[j]);
			}
		}
	}
}
