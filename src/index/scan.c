/*
 * index/scan.c: a bloom_slices lookup.  Each scan key is a bloom_hashed
 * value (f @> bloom_value(x), which the planner makes of f @> x, x <@ f and
 * bloom_contains(f, x): planner/support.c); a row matches when its filter
 * has every key's k bits.  The pending rows are tested one by one, then
 * each group's k slices per key are ANDed (index.h).  A bitmap scan takes
 * the rows as a bitmap (amgetbitmap); a plain index scan (amgettuple), one
 * by one in heap order, prefetching their pages a few ahead.
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
#include "utils/memutils.h"
#include "utils/spccache.h"
#include "access/tableam.h"
#include "storage/buf_internals.h"
#include "utils/rel.h"

/* A key's positions in one shape, computed once per shape met. */
typedef struct BloomScanShape
{
	BloomIndexShape shape;
	uint64	   *positions;		/* nkeys * k */
	bool	   *unknown;		/* per key: read otherwise than the filter reads */
} BloomScanShape;

#define BLOOM_SCAN_SHAPES 8


/* Heap pages a plain scan prefetches ahead of the one it returns (doc/benchmarks.md) */
#define BLOOM_SCAN_PREFETCH 8

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

	/* where a lookup puts the rows it finds (bloom_scan_found) */
	TIDBitmap  *sink;			/* a bitmap: a bitmap scan's, or a plain scan's past work_mem */
	uint64	   *found;			/* else a plain scan's array of BLOOM_SCAN_KEY()s */
	Size		nfound;
	Size		maxfound;
	Size		found_limit;	/* the keys work_mem holds */

	/* a plain index scan (bloom_index_get_tuple): the rows found, in heap order */
	MemoryContext context;		/* the scan's, where the rows found live */
	bool		looked_up;		/* the lookup has run since the last rescan */
	Size		next_found;		/* the next of found to return */
	Size		next_prefetch;	/* the first of found whose page is not prefetched */
	int			prefetch_pages; /* how many pages ahead of the one returned (0: none) */
	uint64		pages_started;	/* pages returned, the one being returned included */
	uint64		pages_prefetched;	/* pages prefetched (or returned before they were) */
	TIDBitmap  *tids;			/* or, past work_mem, the bitmap of them */
	BloomTbmIterator *iterator;
	BlockNumber block;			/* the page being returned */
	OffsetNumber offsets[MaxHeapTuplesPerPage];
	int			ntuples;		/* its offsets; -1: a lossy page, every offset */
	int			next;			/* the next of them (of a lossy page: offset - 1) */
	bool		recheck;
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

/*
 * A row found, as a plain scan keeps it: sorted, these keys are in heap
 * order, and a row found twice (pending and in a group) is two neighbours.
 */
#define BLOOM_SCAN_KEY(block, offset, recheck) \
	((uint64) (block) << 17 | (uint64) (offset) << 1 | (uint64) ((recheck) ? 1 : 0))
#define BLOOM_SCAN_KEY_BLOCK(key) ((BlockNumber) ((key) >> 17))
#define BLOOM_SCAN_KEY_OFFSET(key) ((OffsetNumber) (((key) >> 1) & 0xFFFF))

#define ST_SORT bloom_scan_sort_found
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Move a plain scan's rows found into a bitmap, whose size work_mem bounds. */
static void
bloom_scan_found_to_bitmap(BloomScanState *state)
{
	MemoryContext caller = MemoryContextSwitchTo(state->context);

	state->sink = tbm_create(work_mem * 1024L, NULL);
	for (Size i = 0; i < state->nfound; i++)
	{
		ItemPointerData tid;

		ItemPointerSet(&tid, BLOOM_SCAN_KEY_BLOCK(state->found[i]),
					   BLOOM_SCAN_KEY_OFFSET(state->found[i]));
		tbm_add_tuples(state->sink, &tid, 1, (state->found[i] & 1) != 0);
	}
	if (state->found != NULL)
		pfree(state->found);
	state->found = NULL;
	state->nfound = state->maxfound = 0;
	MemoryContextSwitchTo(caller);
}

/*
 * Keep a row found: in the bitmap scan's bitmap, or in the plain scan's
 * array, which sorts faster than a bitmap sorts its pages, while it fits
 * work_mem (then in a bitmap, which may become lossy).
 */
static inline void
bloom_scan_found(BloomScanState *state, ItemPointer tid, bool recheck)
{
	if (state->sink == NULL && state->nfound == state->maxfound)
	{
		if (state->nfound >= state->found_limit)
			bloom_scan_found_to_bitmap(state);
		else
		{
			Size		grown = Min(Max(state->maxfound * 2, 1024), state->found_limit);

			state->found = state->found == NULL ?
				MemoryContextAlloc(state->context, grown * sizeof(uint64)) :
				repalloc(state->found, grown * sizeof(uint64));
			state->maxfound = grown;
		}
	}
	if (state->sink != NULL)
		tbm_add_tuples(state->sink, tid, 1, recheck);
	else
		state->found[state->nfound++] =
			BLOOM_SCAN_KEY(ItemPointerGetBlockNumberNoCheck(tid),
						   ItemPointerGetOffsetNumberNoCheck(tid), recheck);
}

/* Forget the rows a plain index scan found, for a rescan or the end. */
static void
bloom_scan_forget_rows(BloomScanState *state)
{
	if (state->iterator != NULL)
		bloom_tbm_end_iterate(state->iterator);
	if (state->tids != NULL)
		tbm_free(state->tids);
	if (state->found != NULL)
		pfree(state->found);
	state->iterator = NULL;
	state->tids = NULL;
	state->found = NULL;
	state->nfound = state->maxfound = state->next_found = 0;
	state->looked_up = false;
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
	entry->positions = palloc(sizeof(uint64) * state->nkeys * Max(shape->k, 1));
	entry->unknown = palloc(sizeof(bool) * state->nkeys);
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
			match = bloom_scan_tuple(state, tuple, &unknown);

			/* a row in one tuple: decided here */
			if (tuple->chunk == 0 && tuple->last)
			{
				if (match)
				{
					bloom_scan_found(state, &tuple->tid, unknown);
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
				bloom_scan_found(state, &row->tid, row->unknown || row->bytes_seen != row->bytes);
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
				/* the table may have grown since the lookup began */
				if (ItemPointerGetBlockNumberNoCheck(&tid) >= state->heap_blocks)
					state->heap_blocks = bloom_index_table_blocks(index);
				if (ItemPointerGetOffsetNumberNoCheck(&tid) > MaxHeapTuplesPerPage ||
					ItemPointerGetBlockNumberNoCheck(&tid) >= state->heap_blocks)
				{
					UnlockReleaseBuffer(tid_buffer);
					bloom_index_check_tid(index, group->tid_first + tid_page, &tid, state->heap_blocks);
				}
				bloom_scan_found(state, &tid, recheck);
				found++;
			}
		}
	}
	if (BufferIsValid(tid_buffer))
		UnlockReleaseBuffer(tid_buffer);
	pfree(candidates);
	return found;
}

/* Run the lookup, giving every row found to bloom_scan_found; how many. */
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

	state->sink = tbm;
	found = bloom_scan_lookup(scan);
	state->sink = NULL;
	return found;
}

/* How many heap pages a plain scan prefetches ahead; 0 if none. */
static int
bloom_scan_prefetch_pages(IndexScanDesc scan)
{
	Relation	heap = scan->heapRelation;

	if (heap == NULL || heap->rd_tableam != GetHeapamTableAmRoutine())
		return 0;
	return get_tablespace_io_concurrency(heap->rd_rel->reltablespace) > 0 ? BLOOM_SCAN_PREFETCH : 0;
}

/*
 * Prefetch the heap pages of the rows found next, prefetch_pages pages
 * ahead of the one a plain scan starts returning (the row at next_found):
 * PrefetchBuffer starts the read of a page not in shared buffers, and of a
 * page that is, the buffer's descriptor, the page's header and the first
 * row's line pointer are brought into the CPU's cache, which reading the
 * rows would otherwise wait for, page after page.
 */
static void
bloom_scan_prefetch(IndexScanDesc scan, BloomScanState *state)
{
	state->pages_started++;
	if (state->pages_prefetched <= state->pages_started)
	{
		/* not ahead (at first): start after this page */
		state->pages_prefetched = state->pages_started + 1;
		state->next_prefetch = state->next_found;
		while (state->next_prefetch < state->nfound &&
			   BLOOM_SCAN_KEY_BLOCK(state->found[state->next_prefetch]) == state->block)
			state->next_prefetch++;
	}
	while (state->next_prefetch < state->nfound &&
		   state->pages_prefetched <= state->pages_started + state->prefetch_pages)
	{
		uint64		key = state->found[state->next_prefetch];
		BlockNumber block = BLOOM_SCAN_KEY_BLOCK(key);
		OffsetNumber offset = BLOOM_SCAN_KEY_OFFSET(key);
		PrefetchBufferResult result;

		result = PrefetchBuffer(scan->heapRelation, MAIN_FORKNUM, block);
		if (BufferIsValid(result.recent_buffer))
		{
			const char *page = BufferGetPage(result.recent_buffer);

			if (result.recent_buffer > 0)
				__builtin_prefetch(GetBufferDescriptor(result.recent_buffer - 1), 0, 3);
			__builtin_prefetch(page, 0, 3);
			/* a pending row's TID reaches here unchecked: an address in the page */
			if (offset >= FirstOffsetNumber && offset <= MaxHeapTuplesPerPage)
				__builtin_prefetch(page + SizeOfPageHeaderData + (offset - 1) * sizeof(ItemIdData), 0, 3);
		}
		while (state->next_prefetch < state->nfound &&
			   BLOOM_SCAN_KEY_BLOCK(state->found[state->next_prefetch]) == block)
			state->next_prefetch++;
		state->pages_prefetched++;
	}
}

/*
 * A plain index scan returns the rows the lookup finds one by one, in heap
 * order, each once (a row may be found pending and in a group), so the
 * table is read as a bitmap heap scan reads it.  They are kept in an array
 * sorted once, or past work_mem in a bitmap, as large as a bitmap scan's.
 * What the plain scan spares: the planner keeps the original clause (f @> x)
 * as a Filter evaluated on every row a bitmap heap scan fetches, but drops
 * it beside an index scan whose condition is exact (index/condition.c), and
 * rechecks only the rows the index cannot decide.
 */
bool
bloom_index_get_tuple(IndexScanDesc scan, ScanDirection direction)
{
	BloomScanState *state = (BloomScanState *) scan->opaque;

	if (!state->looked_up)
	{
		state->sink = NULL;
		state->found_limit = Min((Size) work_mem * 1024 / sizeof(uint64), MaxAllocSize / sizeof(uint64));
		bloom_scan_lookup(scan);
		if (state->sink != NULL)
		{
			MemoryContext caller = MemoryContextSwitchTo(state->context);

			state->tids = state->sink;
			state->sink = NULL;
			state->iterator = bloom_tbm_begin_iterate(state->tids);
			state->ntuples = 0;
			state->next = 0;
			MemoryContextSwitchTo(caller);
		}
		else if (state->nfound > 1)
			bloom_scan_sort_found(state->found, state->nfound);
		state->next_found = state->next_prefetch = 0;
		state->block = InvalidBlockNumber;
		state->pages_started = state->pages_prefetched = 0;
		state->prefetch_pages = bloom_scan_prefetch_pages(scan);
		state->looked_up = true;
	}
	if (state->tids == NULL)
	{
		uint64		key;
		bool		recheck;

		if (state->next_found >= state->nfound)
			return false;
		key = state->found[state->next_found];
		if (BLOOM_SCAN_KEY_BLOCK(key) != state->block && state->prefetch_pages > 0)
		{
			state->block = BLOOM_SCAN_KEY_BLOCK(key);
			bloom_scan_prefetch(scan, state);
		}
		state->next_found++;
		recheck = (key & 1) != 0;
		while (state->next_found < state->nfound &&
			   state->found[state->next_found] >> 1 == key >> 1)
			recheck = recheck || (state->found[state->next_found++] & 1) != 0;
		ItemPointerSet(&scan->xs_heaptid, BLOOM_SCAN_KEY_BLOCK(key), BLOOM_SCAN_KEY_OFFSET(key));
		scan->xs_recheck = recheck;
		return true;
	}
	for (;;)
	{
		if (state->ntuples < 0 ? state->next < MaxHeapTuplesPerPage : state->next < state->ntuples)
		{
			OffsetNumber offset = state->ntuples < 0 ? state->next + 1 : state->offsets[state->next];

			state->next++;
			ItemPointerSet(&scan->xs_heaptid, state->block, offset);
			scan->xs_recheck = state->recheck;
			return true;
		}
		if (!bloom_tbm_next_page(state->iterator, &state->block, state->offsets,
								 &state->ntuples, &state->recheck))
			return false;
		state->next = 0;
	}
}
