/*
 * core/sparse.c: the sparse form of a bit array (core/core.h).
 *
 * A sparse bit array (a partial state holding a share of the values, a few
 * percent of its bits set, or far fewer for a self-sized aggregate's
 * sketch) is mostly zero bytes.  It exists to pass partial states between
 * processes of one query, never to be stored.  Two forms, after a kind
 * byte:
 *
 * - gaps: the number of nonzero bytes (a 64-bit word, so that a form cut
 *   between two of them is refused), then for each nonzero byte in order,
 *   the number of bytes skipped since the previous one (LEB128: 7 bits a
 *   byte, low first, no needless high zero bytes), then the byte.  About 2
 *   bytes per nonzero byte while
 *   they are less than 128 bytes apart: a self-sized sketch holding a
 *   sixteenth of its values has about 3% of its bytes nonzero, and is
 *   0.07 times its size in this form.
 * - masks: for each block of 64 bytes, a 64-bit mask of its nonzero bytes
 *   (bit i: byte i), all the masks first, then the nonzero bytes in order.
 *   At a fill of 5% about 31% of the bytes are nonzero and the form is 0.44
 *   times the array's size.
 *
 * Both cost one byte per nonzero byte; beyond that gaps cost their
 * encodings and the count, and masks cost 8 bytes a block.  The encoder writes gaps until
 * theirs pass the masks', which is final (the gaps' bytes only grow), and
 * then writes masks: so it never writes more than bf_sparse_bound, and the
 * form of an array does not depend on how it was written.  Either form is
 * ORed into an array in one pass over its nonzero bytes.
 */
#include "core/core.h"

#include <string.h>

#define BF_SPARSE_BLOCK 64

/* Eight bytes as a little-endian word (core/bits.c explains the layout). */
#define load_le_word bf_load_le64
#define store_le_word bf_store_le64

/* Bit i set for each nonzero byte i of the 8 at p. */
static inline uint64_t
nonzero_byte_mask(const uint8_t *p)
{
	const uint64_t low7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
	uint64_t	word = load_le_word(p);
	uint64_t	high = (((word & low7) + low7) | word) & ~low7;

	/* the high bit of each byte, gathered into the top byte in byte order */
	return ((high >> 7) * UINT64_C(0x0102040810204080)) >> 56;
}

/* The mask of the block at bits (length bytes, 1..64). */
static inline uint64_t
sparse_block_mask(const uint8_t *bits, size_t length)
{
	uint64_t	mask = 0;
	size_t		i = 0;

	for (; i + 8 <= length; i += 8)
		mask |= nonzero_byte_mask(bits + i) << i;
	for (; i < length; i++)
		mask |= (uint64_t) (bits[i] != 0) << i;
	return mask;
}

void
bf_sparse_gaps_begin(bf_sparse_gaps *gaps, size_t nbytes, uint8_t *out)
{
	gaps->out = out;
	gaps->out[0] = BF_SPARSE_GAPS;
	gaps->length = 1 + sizeof(uint64_t);
	gaps->overhead = sizeof(uint64_t);
	gaps->count = 0;
	gaps->budget = bf_sparse_blocks(nbytes) * sizeof(uint64_t);
	gaps->next = 0;
}

/* Append the nonzero byte at offset; false once the masks are shorter. */
static inline bool
sparse_gaps_byte(bf_sparse_gaps *gaps, uint64_t offset, uint8_t byte)
{
	uint64_t	gap = offset - gaps->next;
	uint8_t    *out = gaps->out + gaps->length;
	size_t		written = 0;

	do
	{
		uint8_t		low = (uint8_t) (gap & 0x7f);

		gap >>= 7;
		out[written++] = (uint8_t) (low | (gap != 0 ? 0x80 : 0));
	} while (gap != 0 && gaps->overhead + written <= gaps->budget);
	gaps->overhead += written;
	if (gaps->overhead > gaps->budget)
		return false;
	out[written] = byte;
	gaps->length += written + 1;
	gaps->next = offset + 1;
	gaps->count++;
	return true;
}

void
bf_sparse_gaps_put(bf_sparse_gaps *gaps, const uint8_t *piece, size_t length, uint64_t offset)
{
	size_t		i = 0;

	if (gaps->overhead > gaps->budget)
		return;
	for (; i + 8 <= length; i += 8)
	{
		uint64_t	mask;

		if (i % BF_INTERRUPT_STRIDE == 0 && i > 0)
			bf_check_interrupts();
		if (load_le_word(piece + i) == 0)
			continue;
		mask = nonzero_byte_mask(piece + i);
		for (; mask != 0; mask &= mask - 1)
		{
			size_t		at = i + (size_t) __builtin_ctzll(mask);

			if (!sparse_gaps_byte(gaps, offset + at, piece[at]))
				return;
		}
	}
	for (; i < length; i++)
		if (piece[i] != 0 && !sparse_gaps_byte(gaps, offset + i, piece[i]))
			return;
}

size_t
bf_sparse_gaps_end(const bf_sparse_gaps *gaps)
{
	if (gaps->overhead > gaps->budget)
		return 0;
	store_le_word(gaps->out + 1, gaps->count);
	return gaps->length;
}

size_t
bf_sparse_encode(const uint8_t *bits, size_t nbytes, uint8_t *out)
{
	bf_sparse_gaps gaps;
	size_t		gaps_length;
	uint8_t    *masks = out + 1;
	uint8_t    *bytes = masks + bf_sparse_blocks(nbytes) * sizeof(uint64_t);

	bf_sparse_gaps_begin(&gaps, nbytes, out);
	bf_sparse_gaps_put(&gaps, bits, nbytes, 0);
	gaps_length = bf_sparse_gaps_end(&gaps);
	if (gaps_length != 0)
		return gaps_length;

	out[0] = BF_SPARSE_MASKS;
	for (size_t offset = 0; offset < nbytes; offset += BF_SPARSE_BLOCK)
	{
		size_t		length = nbytes - offset < BF_SPARSE_BLOCK ? nbytes - offset : BF_SPARSE_BLOCK;
		uint64_t	mask = sparse_block_mask(bits + offset, length);

		if (offset % BF_INTERRUPT_STRIDE == 0 && offset > 0)
			bf_check_interrupts();
		store_le_word(masks, mask);
		masks += sizeof(mask);
		for (uint64_t rest = mask; rest != 0; rest &= rest - 1)
			*bytes++ = bits[offset + (size_t) __builtin_ctzll(rest)];
	}
	return (size_t) (bytes - out);
}

/*
 * Read the gap at *in (at most end): false when it is cut short, longer
 * than 64 bits, or has a needless high zero byte.
 */
static inline bool
sparse_read_gap(const uint8_t **in, const uint8_t *end, uint64_t *gap)
{
	uint64_t	value = 0;

	/* most gaps of a sparse array take one byte */
	if (**in < 0x80)
	{
		*gap = *(*in)++;
		return true;
	}
	for (unsigned shift = 0; *in < end && shift < 64; shift += 7)
	{
		uint8_t		byte = *(*in)++;

		if (shift == 63 && byte > 1)
			return false;
		value |= (uint64_t) (byte & 0x7f) << shift;
		if ((byte & 0x80) == 0)
		{
			*gap = value;
			return byte != 0 || shift == 0;
		}
	}
	return false;
}

static bool
sparse_check_gaps(const uint8_t *in, size_t length, size_t nbytes)
{
	const uint8_t *end = in + length;
	uint64_t	next = 0;
	uint64_t	count;

	if (length < sizeof(count))
		return false;
	count = load_le_word(in);
	in += sizeof(count);
	for (; in < end; count--)
	{
		uint64_t	gap;

		if (count == 0 || !sparse_read_gap(&in, end, &gap) || in == end ||
			gap >= nbytes - next || *in == 0)
			return false;
		next += gap + 1;
		in++;
	}
	return count == 0;
}

static bool
sparse_check_masks(const uint8_t *in, size_t length, size_t nbytes)
{
	size_t		mask_bytes = bf_sparse_blocks(nbytes) * sizeof(uint64_t);
	size_t		nonzero = 0;
	size_t		tail = nbytes % BF_SPARSE_BLOCK;

	if (length < mask_bytes)
		return false;
	for (size_t block = 0; block < mask_bytes / sizeof(uint64_t); block++)
	{
		uint64_t	mask;

		mask = load_le_word(in + block * sizeof(mask));
		nonzero += (size_t) __builtin_popcountll(mask);
	}
	/* no byte past the array's end, and one stored byte per mask bit */
	if (tail != 0)
	{
		uint64_t	last = load_le_word(in + mask_bytes - sizeof(last));

		if ((last >> tail) != 0)
			return false;
	}
	return length - mask_bytes == nonzero;
}

bool
bf_sparse_check(const uint8_t *in, size_t length, size_t nbytes)
{
	if (length < 1)
		return false;
	if (in[0] == BF_SPARSE_GAPS)
		return sparse_check_gaps(in + 1, length - 1, nbytes);
	if (in[0] == BF_SPARSE_MASKS)
		return sparse_check_masks(in + 1, length - 1, nbytes);
	return false;
}

void
bf_sparse_or_into(uint8_t *bits, size_t nbytes, const uint8_t *in, size_t length)
{
	if (in[0] == BF_SPARSE_GAPS)
	{
		const uint8_t *next = in + 1 + sizeof(uint64_t);
		const uint8_t *end = in + length;
		uint64_t	offset = 0;

		while (next < end)
		{
			uint64_t	gap = 0;

			(void) sparse_read_gap(&next, end, &gap);
			offset += gap;
			bits[offset++] |= *next++;
		}
		return;
	}

	{
		const uint8_t *masks = in + 1;
		const uint8_t *bytes = masks + bf_sparse_blocks(nbytes) * sizeof(uint64_t);

		for (size_t offset = 0; offset < nbytes; offset += BF_SPARSE_BLOCK)
		{
			uint64_t	mask;

			if (offset % BF_INTERRUPT_STRIDE == 0 && offset > 0)
				bf_check_interrupts();
			mask = load_le_word(masks);
			masks += sizeof(mask);
			for (; mask != 0; mask &= mask - 1)
				bits[offset + (size_t) __builtin_ctzll(mask)] |= *bytes++;
		}
	}
}
