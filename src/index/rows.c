/*
 * index/rows.c: the rows a lookup finds (scan.c), kept as the scan takes
 * them.  A bitmap scan (amgetbitmap) takes them in its own bitmap.  A plain
 * index scan (amgettuple) takes them one by one, in heap order, each once
 * (a row may be found pending and in a group), so that the table is read as
 * a bitmap heap scan reads it: they are kept in an array of 8-byte keys,
 * sorted once, which costs less than a bitmap's hash table of pages, and
 * past work_mem in a bitmap as large as a bitmap scan's (which may go
 * lossy; while the array grows or moves into the bitmap, both are held, so
 * the peak is up to twice work_mem).  Since every row is known before the
 * first is returned, their heap pages are prefetched a few ahead.
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"

#include "access/tableam.h"
#include "miscadmin.h"
#include "storage/buf_internals.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/spccache.h"

/*
 * Heap pages a plain scan prefetches ahead of the one it returns: for the
 * CPU's cache, whose misses it hides (doc/benchmarks.md: 2, 8 or 32 made no
 * difference), so not effective_io_concurrency, which only turns it on.
 */
#define BLOOM_ROWS_PREFETCH 8

/*
 * A row found, as the array keeps it: sorted, these keys are in heap
 * order, and a row found twice is two neighbours.
 */
#define BLOOM_ROW_KEY(block, offset, recheck) \
	((uint64) (block) << 17 | (uint64) (offset) << 1 | (uint64) ((recheck) ? 1 : 0))
#define BLOOM_ROW_KEY_BLOCK(key) ((BlockNumber) ((key) >> 17))
#define BLOOM_ROW_KEY_OFFSET(key) ((OffsetNumber) (((key) >> 1) & 0xFFFF))

#define ST_SORT bloom_rows_sort
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) (*(a) < *(b) ? -1 : *(a) > *(b) ? 1 : 0)
#define ST_SCOPE static
#define ST_CHECK_FOR_INTERRUPTS
#define ST_DEFINE
#include "lib/sort_template.h"

struct BloomFoundRows
{
	MemoryContext context;		/* where the array and a bitmap of our own live */
	TIDBitmap  *bitmap;			/* where rows go, if not NULL: a bitmap scan's, or ours */
	bool		own_bitmap;
	uint64	   *keys;			/* else here, BLOOM_ROW_KEY()s */
	Size		nkeys;
	Size		maxkeys;
	Size		limit;			/* the keys work_mem holds */

	/* returning them from the array */
	Size		next;			/* the next key to return */
	BlockNumber block;			/* the page being returned */
	Relation	heap;
	int			prefetch_pages; /* how many pages ahead of it (0: none) */
	Size		next_prefetch;	/* the first key whose page is not prefetched */
	uint64		pages_started;	/* pages returned, the one being returned included */
	uint64		pages_prefetched;	/* the number of the next page to prefetch (pages
									 * are numbered as returned, from 1) */

	/* returning them from our bitmap */
	BloomTbmIterator *iterator;
	OffsetNumber offsets[MaxHeapTuplesPerPage];
	int			ntuples;		/* the page's offsets; -1: a lossy page, every offset */
	int			next_offset;	/* the next of them (of a lossy page: offset - 1) */
	bool		recheck;
};

/* Rows to keep in bitmap, or (NULL) for a plain scan, in memory of context. */
BloomFoundRows *
bloom_found_rows_create(MemoryContext context, TIDBitmap *bitmap)
{
	BloomFoundRows *rows = MemoryContextAllocZero(context, sizeof(BloomFoundRows));

	rows->context = context;
	rows->bitmap = bitmap;
	rows->limit = Min((Size) work_mem * 1024 / sizeof(uint64), MaxAllocSize / sizeof(uint64));
	return rows;
}

/* Move the array into a bitmap of our own, whose size work_mem bounds. */
static void
bloom_rows_to_bitmap(BloomFoundRows *rows)
{
	MemoryContext caller = MemoryContextSwitchTo(rows->context);

	rows->bitmap = tbm_create((Size) work_mem * 1024, NULL);
	rows->own_bitmap = true;
	for (Size i = 0; i < rows->nkeys; i++)
	{
		ItemPointerData tid;

		ItemPointerSet(&tid, BLOOM_ROW_KEY_BLOCK(rows->keys[i]), BLOOM_ROW_KEY_OFFSET(rows->keys[i]));
		tbm_add_tuples(rows->bitmap, &tid, 1, (rows->keys[i] & 1) != 0);
	}
	if (rows->keys != NULL)
		pfree(rows->keys);
	rows->keys = NULL;
	rows->nkeys = rows->maxkeys = 0;
	MemoryContextSwitchTo(caller);
}

/* Keep a row found; recheck: the table must test it again. */
void
bloom_found_rows_add(BloomFoundRows *rows, ItemPointer tid, bool recheck)
{
	if (rows->bitmap == NULL && rows->nkeys == rows->maxkeys)
	{
		if (rows->nkeys >= rows->limit)
			bloom_rows_to_bitmap(rows);
		else
		{
			Size		grown = Min(Max(rows->maxkeys * 2, 1024), rows->limit);

			rows->keys = rows->keys == NULL ?
				MemoryContextAlloc(rows->context, grown * sizeof(uint64)) :
				repalloc(rows->keys, grown * sizeof(uint64));
			rows->maxkeys = grown;
		}
	}
	if (rows->bitmap != NULL)
		tbm_add_tuples(rows->bitmap, tid, 1, recheck);
	else
		rows->keys[rows->nkeys++] = BLOOM_ROW_KEY(ItemPointerGetBlockNumberNoCheck(tid),
												  ItemPointerGetOffsetNumberNoCheck(tid), recheck);
}

/*
 * Get ready to return the rows, all found, to a plain scan of heap (NULL if
 * unknown): sort them, and prefetch only from a heap table, and as a bitmap
 * heap scan would (effective_io_concurrency of its tablespace above 0).
 */
void
bloom_found_rows_start(BloomFoundRows *rows, Relation heap)
{
	if (rows->bitmap != NULL)
	{
		MemoryContext caller = MemoryContextSwitchTo(rows->context);

		Assert(rows->own_bitmap);
		rows->iterator = bloom_tbm_begin_iterate(rows->bitmap);
		rows->ntuples = 0;
		rows->next_offset = 0;
		MemoryContextSwitchTo(caller);
		return;
	}
	if (rows->nkeys > 1)
		bloom_rows_sort(rows->keys, rows->nkeys);
	rows->next = rows->next_prefetch = 0;
	rows->block = InvalidBlockNumber;
	rows->pages_started = rows->pages_prefetched = 0;
	rows->heap = heap;
	rows->prefetch_pages = heap != NULL && heap->rd_tableam == GetHeapamTableAmRoutine() &&
		get_tablespace_io_concurrency(heap->rd_rel->reltablespace) > 0 ? BLOOM_ROWS_PREFETCH : 0;
}

/*
 * Prefetch the heap pages of the rows next returned, prefetch_pages pages
 * ahead of the one starting (the row at next): PrefetchBuffer starts the
 * read of a page not in shared buffers, and of a page that is, the buffer's
 * descriptor, the page's header and the first row's line pointer are brought
 * into the CPU's cache, which reading the rows would otherwise wait for,
 * page after page.  Nothing is pinned and no page is read here.
 */
static void
bloom_rows_prefetch(BloomFoundRows *rows)
{
	rows->pages_started++;
	if (rows->pages_prefetched <= rows->pages_started)
	{
		/* not ahead (at first): start after this page */
		rows->pages_prefetched = rows->pages_started + 1;
		rows->next_prefetch = rows->next;
		while (rows->next_prefetch < rows->nkeys &&
			   BLOOM_ROW_KEY_BLOCK(rows->keys[rows->next_prefetch]) == rows->block)
			rows->next_prefetch++;
	}
	while (rows->next_prefetch < rows->nkeys &&
		   rows->pages_prefetched <= rows->pages_started + rows->prefetch_pages)
	{
		uint64		key = rows->keys[rows->next_prefetch];
		BlockNumber block = BLOOM_ROW_KEY_BLOCK(key);
		OffsetNumber offset = BLOOM_ROW_KEY_OFFSET(key);
		PrefetchBufferResult result;

		result = PrefetchBuffer(rows->heap, MAIN_FORKNUM, block);
		if (BufferIsValid(result.recent_buffer))
		{
			const char *page = BufferGetPage(result.recent_buffer);

			if (result.recent_buffer > 0)
				__builtin_prefetch(GetBufferDescriptor(result.recent_buffer - 1), 0, 3);
			__builtin_prefetch(page, 0, 3);
			/* the lookup checked the TID (scan.c): the line pointer is in the page */
			__builtin_prefetch(page + SizeOfPageHeaderData + (offset - 1) * sizeof(ItemIdData), 0, 3);
		}
		while (rows->next_prefetch < rows->nkeys &&
			   BLOOM_ROW_KEY_BLOCK(rows->keys[rows->next_prefetch]) == block)
			rows->next_prefetch++;
		rows->pages_prefetched++;
	}
}

/* The next row, in heap order; false when there is none. */
bool
bloom_found_rows_next(BloomFoundRows *rows, ItemPointer tid, bool *recheck)
{
	if (rows->iterator == NULL)
	{
		uint64		key;

		if (rows->next >= rows->nkeys)
			return false;
		key = rows->keys[rows->next];
		if (BLOOM_ROW_KEY_BLOCK(key) != rows->block && rows->prefetch_pages > 0)
		{
			rows->block = BLOOM_ROW_KEY_BLOCK(key);
			bloom_rows_prefetch(rows);
		}
		rows->next++;
		*recheck = (key & 1) != 0;
		while (rows->next < rows->nkeys && rows->keys[rows->next] >> 1 == key >> 1)
			*recheck = *recheck || (rows->keys[rows->next++] & 1) != 0;
		ItemPointerSet(tid, BLOOM_ROW_KEY_BLOCK(key), BLOOM_ROW_KEY_OFFSET(key));
		return true;
	}
	for (;;)
	{
		if (rows->ntuples < 0 ? rows->next_offset < MaxHeapTuplesPerPage :
			rows->next_offset < rows->ntuples)
		{
			OffsetNumber offset = rows->ntuples < 0 ? rows->next_offset + 1 :
				rows->offsets[rows->next_offset];

			rows->next_offset++;
			ItemPointerSet(tid, rows->block, offset);
			*recheck = rows->recheck;
			return true;
		}
		if (!bloom_tbm_next_page(rows->iterator, &rows->block, rows->offsets,
								 &rows->ntuples, &rows->recheck))
			return false;
		rows->next_offset = 0;
	}
}

/* Free the rows; a bitmap scan's bitmap stays its own. */
void
bloom_found_rows_free(BloomFoundRows *rows)
{
	if (rows->iterator != NULL)
		bloom_tbm_end_iterate(rows->iterator);
	if (rows->own_bitmap)
		tbm_free(rows->bitmap);
	if (rows->keys != NULL)
		pfree(rows->keys);
	pfree(rows);
}
