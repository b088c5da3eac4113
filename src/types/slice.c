/*
 * types/slice.c: membership tests on a stored filter that read only the
 * TOAST chunks they need.
 *
 * A filter stored in a table (STORAGE external, the type's default) lives
 * out of line, uncompressed, in TOAST chunks of TOAST_MAX_CHUNK_SIZE (1996)
 * bytes.  Detoasting it whole to read k bits costs time in proportion to its
 * size: a point lookup such as
 *
 *     SELECT bloom_contains(f, $1) FROM filters WHERE id = $2
 *
 * in a 62 MB filter would read 31,000 chunks for one value.  Instead, the
 * lookup reads the header (the first chunk), checks it, and then only the
 * chunks that hold the value's bits: under scheme 2 one 64-byte block (one
 * chunk, or two when the block straddles a boundary, in one index scan);
 * under scheme 1 the k bytes of its probes, grouped by chunk and read in
 * order, stopping at the first clear bit (an absent value is usually
 * answered after one or two).
 *
 * Bit arrays and counter arrays
 * -----------------------------
 *
 * A counting filter (core/counting.h) is stored the same way, with 4-bit
 * counters for bits: position i is in byte i * b / 8 of the array for b
 * bits a position (1 or 4, BloomLayout in types/types.h, which also names the
 * type's header check, length rule and block test), so the same reads
 * serve both: a scheme 2 block is 64 or 256 bytes, and a scheme 1 probe
 * tests its bit or its counter for zero.  In a stored 4.8 MB counting
 * filter (1M values, scheme 1) a point lookup took 0.047 ms by slices,
 * where reading it whole took 0.75 ms; in a 9.6 MB one (2M values, scheme
 * 2) 0.025 ms against 2.0 ms (bench/counting_lookup.sh, medians of 3
 * pgbench runs paired in one server on a loaded 2-core machine); by
 * callgrind, 88,000 and 36,000 instructions a lookup against 4.3 and 8.8
 * million, within 2 and 4% of bloom's slices of the same shapes
 * (bench/callgrind.sh slices).
 *
 * Scalable filters
 * ----------------
 *
 * A scalable filter (core/scalable.h) is a 36-byte header and its stages,
 * each a 24-byte stage header and a bit array.  The slice lookup reads the
 * header and stage 0's header in one slice; the parameters then give every
 * later stage's shape, so every stage's offset, and the total is checked
 * against the toast pointer's length (bf_scalable_parse_shapes) before any
 * bit is read.  Each stage, newest first, is then probed as a bloom filter
 * at its offset.  An absent value costs about a scan or two a stage, a
 * present one its stage's probes too, so slices pay less than for bloom
 * and only for a filter well past its initial capacity: a point lookup in
 * scalable_bloom_empty(0.01, 1000) with 100,000 values (7 stages, 240 kB)
 * took 0.026 ms by slices where reading it whole took 0.029 ms, with
 * 1,000,000 (10 stages, 2.1 MB) 0.033 ms against 0.162 ms
 * (bench/scalable_lookup.sh, medians of 3 pgbench runs paired in one
 * server).  The counts and the later stage headers are not read: no probe
 * depends on them (the whole-value paths check them).
 *
 * When to stop slicing and detoast whole
 * --------------------------------------
 *
 * A call site that tests many values against the same stored filter (the
 * semi-join prefilter: one filter from an InitPlan, millions of rows) is
 * served best by detoasting once and testing in memory (the per-call-site
 * cache, types/cache.c), and a point lookup by slices.  Which one a call site
 * is does not show on its first call, so it rents before it buys: each
 * filter a call site sees is read by slices for a few index scans, at most
 * BLOOM_SLICE_SCANS_MAX and never more than detoasting it whole would cost,
 * and detoasted whole from then on.  A point lookup (one call) stays within
 * that; a scan pays at most BLOOM_SLICE_SCANS_MAX slices on top of the one
 * detoast it always made.  With a budget as large as a whole detoast (n / 4
 * scans, the rent-or-buy bound) and no cap, 1M-value scans of 12 and 62 MB
 * filters measured 1.05x the whole-detoast build; with the cap, 1.01x and
 * 1.02x (bench/lookup.sh, 3 pairs), the lookups unchanged.
 *
 * A slice costs one TOAST index scan (opening the relation and its index,
 * a descent, a heap fetch): about 2 to 2.5 us with the chunks in shared
 * buffers, where detoasting whole costs about 0.4 to 0.5 us a chunk (1.2
 * and 12 MB filters) and 1.8 us a chunk at 62 MB (measured on PostgreSQL
 * 15, 2 cores).  So one scan is worth about BLOOM_SLICE_SCAN_CHUNKS = 4
 * chunks, and a value of n chunks is read by slices for at most
 * min(n / 4, BLOOM_SLICE_SCANS_MAX) scans (bloom_slice_budget) by each call
 * site: a scheme 1 lookup takes up to k + 1 scans (the header, then one per
 * chunk its probes touch), a scheme 2 lookup 2.  A value that cannot afford
 * the header and one probe (under 8 chunks, about 16 kB) is detoasted whole
 * at once.  A counting filter's call site, once detoasted, goes on to keep
 * the bloom filter of its counters (counting_getarg_lookup).
 *
 * What a slice lookup checks: the header exactly as the type's view
 * function does (bf_check_header, or bf_counting_check_header) and the
 * value's length against m, from the toast pointer, before any bit is read,
 * so a damaged value is an ERROR XX001 and never a read past its end;
 * missing or misnumbered chunks raise XX001 in PostgreSQL's TOAST code.
 * The padding past position m is not read: no probe reaches it, so it
 * cannot change an answer (the whole-value paths still reject a value whose
 * padding is not zero).
 */
#include "postgres.h"

#include "types/types.h"
#include "types/scalable_bloom/scalable_bloom.h"

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "miscadmin.h"

/* What one TOAST index scan of a slice costs, in chunks of a whole detoast. */
#define BLOOM_SLICE_SCAN_CHUNKS 4

/* The most slice scans a call site makes of one filter before detoasting it. */
#define BLOOM_SLICE_SCANS_MAX 16

uint32
bloom_slice_budget(const struct varatt_external *toast_pointer)
{
	int64		chunks = ((int64) VARATT_EXTERNAL_GET_EXTSIZE(*toast_pointer) +
						  TOAST_MAX_CHUNK_SIZE - 1) / TOAST_MAX_CHUNK_SIZE;

	return (uint32) Min(chunks / BLOOM_SLICE_SCAN_CHUNKS, BLOOM_SLICE_SCANS_MAX);
}

pg_noreturn static void
bloom_slice_raise_corrupt(const BloomLayout *layout, bf_status status)
{
	Assert(status != BF_OK);
	bloom_raise_invalid_value(layout->type_name, status);
	pg_unreachable();
}

/* The byte of the array (after the header) that holds position i. */
static inline uint64
bloom_slice_byte_of(const BloomLayout *layout, uint64 position)
{
	return position * layout->position_bits / 8;
}

/* Whether position i (a bit, or a counter) is non-zero in byte, the byte holding it. */
static inline bool
bloom_slice_position_set(const BloomLayout *layout, uint8 byte, uint64 position)
{
	uint32		shift = (uint32) (position * layout->position_bits) & 7;

	return ((byte >> shift) & ((1u << layout->position_bits) - 1)) != 0;
}

/*
 * length bytes at offset of the value (offsets count from the byte after the
 * varlena length word, as TOAST does), into dst.
 */
static void
bloom_slice_read(struct varlena *value, const BloomLayout *layout, int64 offset, int64 length,
				 uint8 *dst)
{
	struct varlena *slice = detoast_attr_slice(value, (int32) offset, (int32) length);

	/* the length was checked against the toast pointer's: this is TOAST's own damage */
	if (VARSIZE_ANY_EXHDR(slice) != length)
		bloom_slice_raise_corrupt(layout, layout->length_error);
	memcpy(dst, VARDATA_ANY(slice), length);
	pfree(slice);
}

/*
 * The length a stored value detoasts to (length word included) when it can
 * be read by slices: external on disk and uncompressed; else 0.
 */
Size
bloom_slice_raw_size(struct varlena *value)
{
	struct varatt_external toast_pointer;

	if (!VARATT_IS_EXTERNAL_ONDISK(value))
		return 0;
	VARATT_EXTERNAL_GET_POINTER(toast_pointer, value);
	if (VARATT_EXTERNAL_IS_COMPRESSED(toast_pointer))
		return 0;
	return (Size) toast_pointer.va_rawsize;
}

/*
 * The bytes after the length word of a value bloom_slice_raw_size accepts,
 * from its toast pointer, which must agree with itself: ERROR XX001 if not.
 */
static int64
bloom_slice_length(struct varlena *value, const BloomLayout *layout)
{
	struct varatt_external toast_pointer;
	int64		length;

	Assert(bloom_slice_raw_size(value) > 0);
	VARATT_EXTERNAL_GET_POINTER(toast_pointer, value);
	length = VARATT_EXTERNAL_GET_EXTSIZE(toast_pointer);
	if (length + VARHDRSZ != toast_pointer.va_rawsize)
		bloom_slice_raise_corrupt(layout, layout->length_error);
	return length;
}

/*
 * Detoast a value bloom_slice_raw_size accepts into dst, which has room for
 * that many bytes: its length word, then its bytes, BF_INTERRUPT_STRIDE at a
 * time, so the whole value is written once, where the caller wants it,
 * rather than into freshly faulted memory of its own first and then copied.
 */
void
bloom_slice_read_whole(struct varlena *value, const BloomLayout *layout, uint8 *dst)
{
	int64		length = bloom_slice_length(value, layout);

	SET_VARSIZE(dst, length + VARHDRSZ);
	for (int64 offset = 0; offset < length; offset += BF_INTERRUPT_STRIDE)
	{
		if (offset > 0)
			CHECK_FOR_INTERRUPTS();
		bloom_slice_read(value, layout, offset,
						 Min((int64) BF_INTERRUPT_STRIDE, length - offset),
						 dst + VARHDRSZ + offset);
	}
}

void
bloom_slice_view(struct varlena *value, const BloomLayout *layout, BloomView *view)
{
	uint8		body[BLOOM_HEADER_BYTES];
	int64		length = bloom_slice_length(value, layout);
	bf_status	status;

	if (length < BLOOM_HEADER_BYTES)
		bloom_slice_raise_corrupt(layout, layout->length_error);
	bloom_slice_read(value, layout, 0, BLOOM_HEADER_BYTES, body);
	bloom_header_read(body, &view->header);
	status = layout->check_header(&view->header);
	if (status == BF_OK &&
		(uint64) (length - BLOOM_HEADER_BYTES) != layout->payload_bytes(view->header.m))
		status = layout->length_error;
	if (status != BF_OK)
		bloom_slice_raise_corrupt(layout, status);
	view->bits = NULL;
	view->nbytes = length - BLOOM_HEADER_BYTES;
}

/* Scheme 2: the value's block, in one slice. */
static bool
bloom_slice_contains_blocked(struct varlena *value, const BloomLayout *layout,
							 const BloomView *view, int64 bits_offset, bf_hash hash,
							 uint32 *scans)
{
	uint8		block[BF_BLOCK_BYTES * BLOOM_LAYOUT_POSITION_BITS_MAX];
	uint64		block_bytes = BF_BLOCK_BYTES * layout->position_bits;
	uint64		offset = bf_block_offset(hash.h1, view->header.m) * layout->position_bits;

	Assert(layout->position_bits <= BLOOM_LAYOUT_POSITION_BITS_MAX);
	Assert(offset + block_bytes <= view->nbytes);
	bloom_slice_read(value, layout, bits_offset + offset, block_bytes, block);
	(*scans)++;
	return layout->block_contains(block, view->header.k, hash.h2);
}

/*
 * Scheme 1: the bytes of the k probes in increasing order, one slice per
 * run of them in one chunk, until a position at zero answers.
 */
static bool
bloom_slice_contains_edh(struct varlena *value, const BloomLayout *layout,
						 const BloomView *view, int64 bits_offset, bf_hash hash, uint32 *scans)
{
	uint64		positions[BLOOM_K_MAX];
	uint8		bytes[TOAST_MAX_CHUNK_SIZE];
	uint32		k = view->header.k;
	uint32		first;

	bf_probe_positions(hash, view->header.m, k, BLOOM_HASH_XXH3_EDH, positions);
	/* insertion sort: k is at most 64 */
	for (uint32 i = 1; i < k; i++)
	{
		uint64		position = positions[i];
		uint32		j = i;

		for (; j > 0 && positions[j - 1] > position; j--)
			positions[j] = positions[j - 1];
		positions[j] = position;
	}

	for (first = 0; first < k;)
	{
		uint64		start = bits_offset + bloom_slice_byte_of(layout, positions[first]);
		uint64		chunk = start / TOAST_MAX_CHUNK_SIZE;
		uint64		end = start;
		uint32		last = first;

		/* the probes whose bytes are in start's chunk */
		while (last + 1 < k)
		{
			uint64		next = bits_offset + bloom_slice_byte_of(layout, positions[last + 1]);

			if (next / TOAST_MAX_CHUNK_SIZE != chunk)
				break;
			end = next;
			last++;
		}
		bloom_slice_read(value, layout, start, end - start + 1, bytes);
		(*scans)++;
		for (; first <= last; first++)
		{
			uint64		position = positions[first];
			uint64		byte = bits_offset + bloom_slice_byte_of(layout, position);

			if (!bloom_slice_position_set(layout, bytes[byte - start], position))
				return false;
		}
	}
	return true;
}

/*
 * Whether the bit array of view, at bits_offset in the value (a bloom or
 * counting filter's after its header, a scalable filter's stage's after its
 * stage header), holds the hash.
 */
static bool
bloom_slice_contains_at(struct varlena *value, const BloomLayout *layout, const BloomView *view,
						int64 bits_offset, bf_hash hash, uint32 *scans)
{
	Assert(view->bits == NULL);
	if (view->header.hash_scheme == BLOOM_HASH_XXH3_BLOCKED)
		return bloom_slice_contains_blocked(value, layout, view, bits_offset, hash, scans);
	Assert(view->header.hash_scheme == BLOOM_HASH_XXH3_EDH);
	return bloom_slice_contains_edh(value, layout, view, bits_offset, hash, scans);
}

bool
bloom_slice_contains(struct varlena *value, const BloomLayout *layout, const BloomView *view,
					 bf_hash hash, uint32 *scans)
{
	return bloom_slice_contains_at(value, layout, view, BLOOM_HEADER_BYTES, hash, scans);
}

/* What the slices use of a scalable filter's layout: its stages are bit arrays. */
static const BloomLayout scalable_slice_layout = {
	.type_name = "scalable_bloom",
	.position_bits = 1,
	.length_error = BF_LENGTH,
	.block_contains = bf_block_test,
};

void
bloom_slice_scalable_view(struct varlena *value, bf_scalable_view *view)
{
	uint8		head[BF_SCALABLE_HEAD_BYTES];
	int64		length = bloom_slice_length(value, &scalable_slice_layout);
	int64		head_length = Min(length, (int64) BF_SCALABLE_HEAD_BYTES);
	bf_status	status = BF_LENGTH;

	if (length >= BF_SCALABLE_HEADER_BYTES)
	{
		bloom_slice_read(value, &scalable_slice_layout, 0, head_length, head);
		status = bf_scalable_parse_shapes(head, (size_t) head_length, (size_t) length, view);
	}
	if (status != BF_OK)
		bloom_slice_raise_corrupt(&scalable_slice_layout, status);
}

bool
bloom_slice_scalable_contains(struct varlena *value, const bf_scalable_view *view, bf_hash hash,
							  uint32 *scans)
{
	/* the newest stage first, as bf_scalable_contains */
	for (uint32 i = view->stages; i-- > 0;)
	{
		const bf_scalable_stage *stage = &view->stage[i];
		BloomView	stage_view = {0};

		stage_view.header.m = stage->m;
		stage_view.header.k = (uint8) stage->k;
		stage_view.header.hash_scheme = stage->scheme;
		stage_view.nbytes = bloom_payload_bytes(stage->m);
		if (bloom_slice_contains_at(value, &scalable_slice_layout, &stage_view,
									stage->offset + BF_SCALABLE_STAGE_HEADER_BYTES, hash, scans))
			return true;
	}
	return false;
}
