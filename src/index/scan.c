/*
 * index/scan.c: a bloom_slices lookup.  Each scan key is a bloom_hashed
 * value (f @> bloom_value(x), which the planner makes of f @> x, x <@ f and
 * bloom_contains(f, x): planner/support.c); a row matches when its filter
 * has every key's k bits.  The pending rows are tested one by one, then
 * each group's k slices per key are ANDed (index.h).  The rows found go
 * to rows.c: a bitmap scan's bitmap, or a plain index scan's sorted rows.
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"
#include "types/types.h"

#include "access/htup_details.h"
#include "access/relscan.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/hsearch.h"
#include "utils/rel.h"

/* A key's positions in one shape, computed once per shape met. */
typedef struct BloomScanShape
{
	BloomIndexShape shape;
	uint64	   *positions;		/* nkeys * k */
	bool	   *unknown;		/* per key: read otherwise than the filter reads */
} BloomScanShape;

#define BLOOM_SCAN_SHAPES 8

typedef struct BloomScanState
{
	int			nkeys;
	const BloomHashed **keys;
	BloomScanShape shapes[BLOOM_SCAN_SHAPES];
	int			nshapes;
	int			next_evict;
	BlockNumber walk_limit;
	BlockNumber heap_blocks;	/* the table's when last measured, 0 before: measured
								 * at the first TID past it, once a scan, not a rescan */

	MemoryContext context;		/* the scan's */
	BloomFoundRows *rows;		/* where the lookup puts the rows it finds; a plain
								 * scan's, from its lookup to the next rescan */
} BloomScanState;

IndexScanDesc
bloom_index_begin_scan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	BloomScanState *state = palloc0(sizeof(BloomScanState));

	state->context = CurrentMemoryContext;
	scan->opaque = state;
	return scan;
}

/* Forget the rows found (a bitmap scan's after its lookup, a plain scan's at a rescan or the end). */
static void
bloom_scan_forget_rows(BloomScanState *state)
{
	if (state->rows != NULL)
		bloom_found_rows_free(state->rows);
	state->rows = NULL;
}

void
bloom_index_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys)
{
	bloom_scan_forget_rows((BloomScanState *) scan->opaque);
	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
}

void
bloom_index_end_scan(IndexScanDesc scan)
{
	bloom_scan_forget_rows((BloomScanState *) scan->opaque);
	pfree(scan->opaque);
	scan->opaque = NULL;
}

/* The positions of every key in shape, from the scan's small cache. */
static BloomScanShape *
bloom_scan_shape(BloomScanState *state, const BloomIndexShape *shape)
{
	BloomScanShape *entry;

	for (int i = 0; i < state->nshapes; i++)
		if (bloom_index_shapes_equal(&state->shapes[i].shape, shape))
			return &state->shapes[i];
	if (state->nshapes < BLOOM_SCAN_SHAPES)
		entry = &state->shapes[state->nshapes++];
	else
	{
		entry = &state->shapes[state->next_evict];
		state->next_evict = (state->next_evict + 1) % BLOOM_SCAN_SHAPES;
		pfree(entry->positions);
		pfree(entry->unknown);
	}
	entry->shape = *shape;
	/* the scan's memory: kept from one amgettuple or amgetbitmap call to the next */
	entry->positions = MemoryContextAlloc(state->context, sizeof(uint64) * state->nkeys * Max(shape->k, 1));
	entry->unknown = MemoryContextAlloc(state->context, sizeof(bool) * state->nkeys);
	for (int i = 0; i < state->nkeys; i++)
	{
		const BloomHashed *key = state->keys[i];
		bf_hash		hash = {key->h1, key->h2};

		/*
		 * A value read otherwise than the filters read text has no positions
		 * here: its rows are candidates, rechecked by the original clause.
		 */
		entry->unknown[i] = (key->utf8_reading != shape->read_utf8);
		if (!entry->unknown[i] && shape->k > 0 && shape->m > 0)
			bf_probe_positions(hash, shape->m, shape->k, shape->hash_scheme,
							   entry->positions + (size_t) i * shape->k);
	}
	return entry;
}

/* Count a page of a walk, refusing a chain longer than the index (a loop). */
static void
bloom_scan_step(IndexScanDesc scan, BloomScanState *state, BlockNumber *steps)
{
	if (++*steps > state->walk_limit)
	{
		state->walk_limit = RelationGetNumberOfBlocks(scan->indexRelation);
		if (*steps > state->walk_limit)
			ereport(ERROR,
					errcode(ERRCODE_INDEX_CORRUPTED),
					errmsg("index \"%s\" has a loop in its page chains",
						   RelationGetRelationName(scan->indexRelation)),
					errhint("Please REINDEX it."));
	}
}

/*
 * A row of several chunks, tracked by its TID: a row's chunks need not be
 * next to each other in the chain (a page emptied by a flush or VACUUM
 * takes new rows between them).  Seen whole, it is exact; seen in part (it
 * was being written or moved), it is rechecked on the heap.
 */
typedef struct BloomChunkedRow
{
	ItemPointerData tid;		/* key */
	bool		match;
	bool		unknown;		/* a key could not be tested: recheck */
	uint64		bytes_seen;
	uint64		bytes;			/* the row's payload bytes */
} BloomChunkedRow;

/* Whether a pending tuple's chunk has every key's bits that fall in it. */
static bool
bloom_scan_tuple(BloomScanState *state, const BloomPendingTuple *tuple, bool *unknown)
{
	BloomIndexShape shape;
	BloomScanShape *positions;
	uint64		first_bit = (uint64) tuple->offset * 8;
	uint64		end_bit = first_bit + (uint64) tuple->length * 8;

	memset(&shape, 0, sizeof(shape));
	shape.m = tuple->m;
	shape.hash_scheme = tuple->hash_scheme;
	shape.k = tuple->k;
	shape.read_utf8 = tuple->read_utf8;
	positions = bloom_scan_shape(state, &shape);
	for (int i = 0; i < state->nkeys; i++)
	{
		const uint64 *p = positions->positions + (size_t) i * shape.k;

		if (positions->unknown[i])
		{
			*unknown = true;
			continue;
		}
		for (int j = 0; j < shape.k; j++)
			if (p[j] >= first_bit && p[j] < end_bit &&
				!(tuple->bits[(p[j] - first_bit) / 8] & (1 << (p[j] % 8))))
				return false;
	}
	return true;
}

static int64
bloom_scan_pending(IndexScanDesc scan, BloomScanState *state, BlockNumber block)
{
	Relation	index = scan->indexRelation;
	HTAB	   *chunked = NULL;
	BlockNumber steps = 0;
	int64		found = 0;

	while (block != InvalidBlockNumber)
	{
		Buffer		buffer;
		Page		page;
		OffsetNumber max;

		CHECK_FOR_INTERRUPTS();
		bloom_scan_step(scan, state, &steps);
		buffer = bloom_index_read(index, block, BUFFER_LOCK_SHARE, BLOOM_PAGE_PENDING);
		page = BufferGetPage(buffer);
		max = PageGetMaxOffsetNumber(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= max; off++)
		{
			ItemId		item = PageGetItemId(page, off);
			BloomPendingTuple *tuple;
			const char *problem;
			bool		unknown = false;
			bool		match;

			if (!ItemIdIsNormal(item))
				continue;
			tuple = (BloomPendingTuple *) PageGetItem(page, item);
			problem = bloom_index_pending_problem(item, tuple);
			if (unlikely(problem != NULL))
			{
				UnlockReleaseBuffer(buffer);
				bloom_index_pending_corrupted(index, block, off, problem);
			}
			bloom_index_check_tid(index, block, &tuple->tid, &state->heap_blocks);
			match = bloom_scan_tuple(state, tuple, &unknown);

			/* a row in one tuple: decided here */
			if (tuple->chunk == 0 && tuple->last)
			{
				if (match)
				{
					bloom_found_rows_add(state->rows, &tuple->tid, unknown);
					found++;
				}
				continue;
			}

			/* a row in chunks: its verdict when the chain is read */
			{
				BloomChunkedRow *row;
				bool		seen;

				row = bloom_index_chunked_row(&chunked, sizeof(BloomChunkedRow), &tuple->tid, &seen);
				if (!seen)
				{
					row->match = true;
					row->unknown = false;
					row->bytes_seen = 0;
					row->bytes = bloom_payload_bytes(tuple->m);
				}
				row->match = row->match && match;
				row->unknown = row->unknown || unknown;
				row->bytes_seen += tuple->length;
			}
		}
		block = BloomIndexPageOpaque(page)->next;
		UnlockReleaseBuffer(buffer);
	}

	if (chunked != NULL)
	{
		HASH_SEQ_STATUS status;
		BloomChunkedRow *row;

		hash_seq_init(&status, chunked);
		while ((row = hash_seq_search(&status)) != NULL)
			if (row->match)
			{
				bloom_found_rows_add(state->rows, &row->tid, row->unknown || row->bytes_seen != row->bytes);
				found++;
			}
		hash_destroy(chunked);
	}
	return found;
}

/* AND one slice into the group's candidates; whether any is left. */
static bool
bloom_scan_and_slice(Relation index, const BloomGroupHeader *group, uint64 position,
					 uint64 *candidates)
{
	uint32		page_index = (uint32) (position / group->slices_per_page);
	uint32		within = (uint32) (position % group->slices_per_page);
	uint32		words = group->slice_bytes / 8;
	uint32		w = 0;
	uint64		any = 0;
	Buffer		buffer;
	const uint8 *slice;

	buffer = bloom_index_read(index, group->slice_first + page_index, BUFFER_LOCK_SHARE,
							  BLOOM_PAGE_SLICES);
	slice = (const uint8 *) PageGetContents(BufferGetPage(buffer)) +
		(size_t) within * group->slice_bytes;
	/* little-endian words, as the slices are written: bit r of word w is row 64 w + r */
	for (; w + 4 <= words; w += 4)
	{
		candidates[w] &= bf_load_le64(slice + (size_t) w * 8);
		candidates[w + 1] &= bf_load_le64(slice + (size_t) (w + 1) * 8);
		candidates[w + 2] &= bf_load_le64(slice + (size_t) (w + 2) * 8);
		candidates[w + 3] &= bf_load_le64(slice + (size_t) (w + 3) * 8);
		any |= candidates[w] | candidates[w + 1] | candidates[w + 2] | candidates[w + 3];
	}
	for (; w < words; w++)
	{
		candidates[w] &= bf_load_le64(slice + (size_t) w * 8);
		any |= candidates[w];
	}
	UnlockReleaseBuffer(buffer);
	return any != 0;
}

static int64
bloom_scan_group(IndexScanDesc scan, BloomScanState *state, const BloomGroupHeader *group)
{
	Relation	index = scan->indexRelation;
	uint32		words = group->rows_max / 64;
	uint64	   *candidates = palloc(words * sizeof(uint64));
	BloomScanShape *positions = bloom_scan_shape(state, &group->shape);
	bool		recheck = false;
	int64		found = 0;
	Buffer		tid_buffer = InvalidBuffer;
	uint32		tid_page = UINT32_MAX;

	/* the rows written; the slices are zero past them, but say so anyway */
	for (uint32 w = 0; w < words; w++)
	{
		uint32		first = w * 64;

		candidates[w] = group->rows >= first + 64 ? ~UINT64CONST(0) :
			group->rows > first ? (UINT64CONST(1) << (group->rows - first)) - 1 : 0;
	}
	for (int i = 0; i < state->nkeys; i++)
	{
		const uint64 *p = positions->positions + (size_t) i * group->shape.k;

		if (positions->unknown[i])
		{
			recheck = true;
			continue;
		}
		for (int j = 0; j < group->shape.k; j++)
			if (!bloom_scan_and_slice(index, group, p[j], candidates))
			{
				pfree(candidates);
				return 0;
			}
	}

	for (uint32 w = 0; w < words; w++)
	{
		uint64		word = candidates[w];

		while (word != 0)
		{
			uint32		r = w * 64 + pg_rightmost_one_pos64(word);
			ItemPointerData tid;

			word &= word - 1;
			if (r / group->tids_per_page != tid_page)
			{
				if (BufferIsValid(tid_buffer))
					UnlockReleaseBuffer(tid_buffer);
				tid_page = r / group->tids_per_page;
				tid_buffer = bloom_index_read(index, group->tid_first + tid_page, BUFFER_LOCK_SHARE,
											  BLOOM_PAGE_TIDS);
			}
			bloom_index_page_tid(group, PageGetContents(BufferGetPage(tid_buffer)),
								 r % group->tids_per_page, &tid);
			if (ItemPointerIsValid(&tid))
			{
				bloom_index_check_tid(index, group->tid_first + tid_page, &tid,
									  &state->heap_blocks);
				bloom_found_rows_add(state->rows, &tid, recheck);
				found++;
			}
		}
	}
	if (BufferIsValid(tid_buffer))
		UnlockReleaseBuffer(tid_buffer);
	pfree(candidates);
	return found;
}

/* Run the lookup, giving every row found to bloom_found_rows_add; how many. */
static int64
bloom_scan_lookup(IndexScanDesc scan)
{
	Relation	index = scan->indexRelation;
	BloomScanState *state = (BloomScanState *) scan->opaque;
	BlockNumber pending_head;
	BlockNumber block;
	BlockNumber steps = 0;
	Buffer		buffer;
	int64		found;

	state->nkeys = scan->numberOfKeys;
	state->keys = palloc(sizeof(BloomHashed *) * Max(state->nkeys, 1));
	for (int i = 0; i < state->nkeys; i++)
	{
		ScanKey		key = &scan->keyData[i];
		const BloomHashed *hashed;

		/* f @> NULL is NULL: no row */
		if (key->sk_flags & SK_ISNULL)
		{
			pfree(state->keys);
			return 0;
		}
		hashed = (const BloomHashed *) DatumGetPointer(key->sk_argument);
		if (hashed->version != BLOOM_HASHED_VERSION)
			ereport(ERROR,
					errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					errmsg("bloom_hashed value of version %u; this bloomfilter reads version %u",
						   hashed->version, BLOOM_HASHED_VERSION));
		state->keys[i] = hashed;
	}
	for (int i = 0; i < state->nshapes; i++)
	{
		pfree(state->shapes[i].positions);
		pfree(state->shapes[i].unknown);
	}
	state->nshapes = 0;
	state->next_evict = 0;
	state->walk_limit = RelationGetNumberOfBlocks(index);

	/* the pending chain first, then the groups (index.h, concurrency) */
	buffer = bloom_index_read(index, BLOOM_INDEX_METAPAGE, BUFFER_LOCK_SHARE, BLOOM_PAGE_META);
	pending_head = bloom_index_meta_checked(index, BufferGetPage(buffer))->pending_head;
	UnlockReleaseBuffer(buffer);
	found = bloom_scan_pending(scan, state, pending_head);

	buffer = bloom_index_read(index, BLOOM_INDEX_METAPAGE, BUFFER_LOCK_SHARE, BLOOM_PAGE_META);
	block = BloomIndexPageMeta(BufferGetPage(buffer))->group_head;
	UnlockReleaseBuffer(buffer);
	while (block != InvalidBlockNumber)
	{
		BloomGroupHeader *group;

		CHECK_FOR_INTERRUPTS();
		bloom_scan_step(scan, state, &steps);
		group = bloom_index_read_group(index, block, &block);
		found += bloom_scan_group(scan, state, group);
		pfree(group);
	}
	pfree(state->keys);
	return found;
}

int64
bloom_index_get_bitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	BloomScanState *state = (BloomScanState *) scan->opaque;
	int64		found;

	state->rows = bloom_found_rows_create(CurrentMemoryContext, tbm);
	found = bloom_scan_lookup(scan);
	bloom_scan_forget_rows(state);
	return found;
}

/*
 * A plain index scan returns the rows the lookup finds one by one, in heap
 * order (rows.c).  What it spares: the planner keeps the original clause
 * (f @> x) as a Filter evaluated on every row a bitmap heap scan fetches,
 * but drops it beside an index scan whose condition is exact
 * (index/condition.c), and rechecks only the rows the index cannot decide.
 */
bool
bloom_index_get_tuple(IndexScanDesc scan, ScanDirection direction)
{
	BloomScanState *state = (BloomScanState *) scan->opaque;

	if (state->rows == NULL)
	{
		state->rows = bloom_found_rows_create(state->context, NULL);
		bloom_scan_lookup(scan);
		bloom_found_rows_start(state->rows, scan->heapRelation);
	}
	return bloom_found_rows_next(state->rows, &scan->xs_heaptid, &scan->xs_recheck);
}
