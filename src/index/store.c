/*
 * index/store.c: where a bloom_slices index keeps its rows: the pending
 * chain, and the flush of G rows of one shape into a bit-sliced group
 * (index.h has the layout).
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"
#include "types/types.h"

#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/bufpage.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* The metapage of an empty index; its pending chain is block 1. */
void
bloom_index_init_meta(Page page)
{
	BloomIndexMeta *meta;

	bloom_index_page_init(page, BLOOM_PAGE_META);
	meta = BloomIndexPageMeta(page);
	memset(meta, 0, sizeof(BloomIndexMeta));
	meta->magic = BLOOM_INDEX_MAGIC;
	meta->version = BLOOM_INDEX_VERSION;
	meta->pending_head = 1;
	meta->pending_tail = 1;
	meta->pending_insert = 1;
	meta->group_head = InvalidBlockNumber;
	meta->pending_pages = 1;
	((PageHeader) page)->pd_lower = ((char *) meta + sizeof(BloomIndexMeta)) - (char *) page;
}

/* The metapage's entry for shape, added if there is room; NULL if not. */
BloomIndexShape *
bloom_index_meta_shape(BloomIndexMeta *meta, const BloomIndexShape *shape, bool add)
{
	for (uint32 i = 0; i < meta->shapes; i++)
		if (bloom_index_shapes_equal(&meta->shape[i], shape))
			return &meta->shape[i];
	if (!add || meta->shapes >= BLOOM_INDEX_SHAPES)
		return NULL;
	meta->shape[meta->shapes] = *shape;
	meta->shape[meta->shapes].pending = 0;
	meta->shape[meta->shapes].grouped = 0;
	meta->shape[meta->shapes].open_group = InvalidBlockNumber;
	return &meta->shape[meta->shapes++];
}

/*
 * Append one row's filter to the pending chain, a chunk per tuple; the
 * caller holds the metapage's exclusive lock.  Each chunk is one WAL
 * record with the metapage and the pages it touches.
 */
void
bloom_index_add_pending(Relation index, Buffer meta_buffer, ItemPointer tid,
						const BloomIndexShape *shape, const uint8 *bits, size_t nbytes)
{
	BloomPendingTuple *tuple = palloc(BLOOM_PENDING_HEADER + Min(nbytes, BLOOM_PENDING_CHUNK));
	size_t		offset = 0;
	uint16		chunk = 0;

	do
	{
		size_t		length = Min(nbytes - offset, BLOOM_PENDING_CHUNK);
		Size		size = BLOOM_PENDING_HEADER + length;
		BloomIndexMeta *meta = BloomIndexPageMeta(BufferGetPage(meta_buffer));
		BlockNumber block = meta->pending_insert;
		Buffer		buffer;
		Buffer		new_buffer = InvalidBuffer;
		GenericXLogState *state;
		Page		page;

		memset(tuple, 0, BLOOM_PENDING_HEADER);
		tuple->tid = *tid;
		tuple->chunk = chunk;
		tuple->m = shape->m;
		tuple->offset = (uint32) offset;
		tuple->length = (uint32) length;
		tuple->hash_scheme = shape->hash_scheme;
		tuple->k = shape->k;
		tuple->read_utf8 = shape->read_utf8;
		tuple->last = (offset + length == nbytes) ? 1 : 0;
		memcpy(tuple->bits, bits + offset, length);

		/* the first page from pending_insert on with room, or a new one */
		for (;;)
		{
			BloomIndexOpaque *opaque;

			buffer = bloom_index_read(index, block, BUFFER_LOCK_EXCLUSIVE, BLOOM_PAGE_PENDING);
			if (PageGetFreeSpace(BufferGetPage(buffer)) >= MAXALIGN(size))
				break;
			opaque = BloomIndexPageOpaque(BufferGetPage(buffer));
			if (opaque->next == InvalidBlockNumber)
			{
				new_buffer = bloom_index_new_buffer(index, false);
				break;
			}
			block = opaque->next;
			UnlockReleaseBuffer(buffer);
		}

		state = GenericXLogStart(index);
		meta = BloomIndexPageMeta(GenericXLogRegisterBuffer(state, meta_buffer, 0));
		page = GenericXLogRegisterBuffer(state, buffer, 0);
		if (BufferIsValid(new_buffer))
		{
			Page		new_page = GenericXLogRegisterBuffer(state, new_buffer,
															 GENERIC_XLOG_FULL_IMAGE);

			bloom_index_page_init(new_page, BLOOM_PAGE_PENDING);
			BloomIndexPageOpaque(page)->next = BufferGetBlockNumber(new_buffer);
			meta->pending_tail = BufferGetBlockNumber(new_buffer);
			meta->pending_pages++;
			page = new_page;
			block = BufferGetBlockNumber(new_buffer);
		}
		if (PageAddItem(page, (void *) tuple, size, InvalidOffsetNumber, false, false) ==
			InvalidOffsetNumber)
			elog(ERROR, "could not add a pending tuple to index \"%s\"",
				 RelationGetRelationName(index));
		meta->pending_insert = block;
		if (tuple->last)
		{
			BloomIndexShape *entry = bloom_index_meta_shape(meta, shape, true);

			if (entry != NULL)
				entry->pending++;
			meta->pending_rows++;
		}
		GenericXLogFinish(state);
		UnlockReleaseBuffer(buffer);
		if (BufferIsValid(new_buffer))
			UnlockReleaseBuffer(new_buffer);

		offset += length;
		chunk++;
	} while (offset < nbytes);
	pfree(tuple);
}

/*
 * A new page of type at the index's end, written whole by fill, one WAL
 * record; its block.  extension_locked: the caller holds the relation
 * extension lock (a run of consecutive pages).
 */
static BlockNumber
bloom_index_write_new_page(Relation index, bool extension_locked, uint16 type,
						   void (*fill) (Page page, void *arg), void *arg)
{
	Buffer		buffer = bloom_index_new_buffer(index, extension_locked);
	GenericXLogState *state = GenericXLogStart(index);
	Page		page = GenericXLogRegisterBuffer(state, buffer, GENERIC_XLOG_FULL_IMAGE);
	BlockNumber block = BufferGetBlockNumber(buffer);

	bloom_index_page_init(page, type);
	fill(page, arg);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buffer);
	return block;
}

/*
 * The slices of rows rows, written as the group's columns column and on,
 * a slice page at a time.  They are transposed (core/slices.c, a 64-by-64
 * tile of bits at a time) for BLOOM_SLICE_WINDOW_PAGES pages at once, so
 * that memory holds the rows and a window of slices, not the group's.
 */
#define BLOOM_SLICE_WINDOW_PAGES 64

typedef struct BloomSliceFill
{
	uint8	  **row_bits;
	const uint8 **shifted;		/* row_bits + window_first / 8 */
	uint32		rows;
	uint32		column;			/* the first row written */
	uint64		m;
	uint32		slice_bytes;
	uint32		slices_per_page;
	uint8	   *window;			/* slices of positions [window_first, window_end) */
	uint64		window_first;
	uint64		window_end;
	uint64		first;			/* the page's positions: [first, end) */
	uint64		end;
} BloomSliceFill;

static void
bloom_index_slices_init(BloomSliceFill *fill, uint64 m, uint32 slice_bytes, uint32 column,
						uint32 rows, uint8 **row_bits)
{
	memset(fill, 0, sizeof(*fill));
	fill->row_bits = row_bits;
	fill->shifted = palloc(Max(rows, 1) * sizeof(uint8 *));
	fill->rows = rows;
	fill->column = column;
	fill->m = m;
	fill->slice_bytes = slice_bytes;
	fill->slices_per_page = bloom_index_slices_per_page(slice_bytes * 8);
	fill->window = palloc((Size) BLOOM_SLICE_WINDOW_PAGES * fill->slices_per_page * slice_bytes);
}

/* Aim fill at slice page i, transposing the window of pages it is in first. */
static void
bloom_index_slices_page(BloomSliceFill *fill, uint32 i)
{
	uint64		span = (uint64) BLOOM_SLICE_WINDOW_PAGES * fill->slices_per_page;

	fill->first = (uint64) i * fill->slices_per_page;
	fill->end = Min(fill->m, fill->first + fill->slices_per_page);
	if (fill->first >= fill->window_first && fill->end <= fill->window_end)
		return;
	/* a multiple of 64 positions: each row's bits there start at a byte */
	fill->window_first = (uint64) (i / BLOOM_SLICE_WINDOW_PAGES) * span;
	fill->window_end = Min(fill->m, fill->window_first + span);
	for (uint32 r = 0; r < fill->rows; r++)
		fill->shifted[r] = fill->row_bits[r] + fill->window_first / 8;
	memset(fill->window, 0, (fill->window_end - fill->window_first) * fill->slice_bytes);
	bf_slice_rows(fill->shifted, fill->rows, fill->column, fill->window_end - fill->window_first,
				  fill->window, fill->slice_bytes);
}

static void
bloom_index_slices_free(BloomSliceFill *fill)
{
	pfree(fill->shifted);
	pfree(fill->window);
}

/*
 * Write the page's share of the slices into it, from the first row written
 * on: what a flush cut short by a crash left there goes.
 */
static void
bloom_index_fill_slices(Page page, void *arg)
{
	BloomSliceFill *fill = (BloomSliceFill *) arg;
	uint8	   *contents = (uint8 *) PageGetContents(page);
	size_t		nbytes = (fill->end - fill->first) * fill->slice_bytes;
	uint32		byte = fill->column / 8;
	uint8		keep = (uint8) ((1u << (fill->column % 8)) - 1);

	for (uint64 p = 0; p < fill->end - fill->first; p++)
	{
		uint8	   *slice = contents + p * fill->slice_bytes;

		slice[byte] &= keep;
		memset(slice + byte + 1, 0, fill->slice_bytes - byte - 1);
	}
	bf_or_into(contents, fill->window + (fill->first - fill->window_first) * fill->slice_bytes,
			   nbytes);
	((PageHeader) page)->pd_lower = (contents + nbytes) - (uint8 *) page;
}

typedef struct BloomTidFill
{
	const BloomGroupHeader *group;
	const ItemPointerData *tids;
	uint32		count;
} BloomTidFill;

static void
bloom_index_fill_tids(Page page, void *arg)
{
	BloomTidFill *fill = (BloomTidFill *) arg;
	char	   *contents = PageGetContents(page);

	bloom_index_fill_tid_page(fill->group, contents, fill->tids, fill->count);
	((PageHeader) page)->pd_lower = (contents + (fill->group->tid_block_bits == 0 ?
												 fill->group->tids_per_page * sizeof(ItemPointerData) :
												 BLOOM_INDEX_PAGE_BYTES)) - (char *) page;
}

static void
bloom_index_fill_group(Page page, void *arg)
{
	BloomGroupHeader *header = BloomIndexPageGroup(page);

	memcpy(header, arg, sizeof(BloomGroupHeader));
	((PageHeader) page)->pd_lower = ((char *) (header + 1)) - (char *) page;
}

/*
 * Write rows rows of one shape as a new group of rows_max rows and link it
 * in front of the group list; the caller holds the metapage's exclusive
 * lock.  The group's slice pages and TID pages are one run of consecutive
 * blocks, written under the relation extension lock; its header is written
 * after them and linked last, so no scan sees half.  A group with room
 * becomes its shape's open group.
 */
BlockNumber
bloom_index_write_group(Relation index, Buffer meta_buffer, const BloomIndexShape *shape,
						uint32 rows_max, uint32 rows, ItemPointerData *tids, uint8 **row_bits)
{
	BloomGroupHeader header;
	BloomSliceFill slices;
	bool		need_lock = !RELATION_IS_LOCAL(index);
	GenericXLogState *state;
	BloomIndexMeta *meta;
	BloomIndexShape *entry;
	Page		page;
	BlockNumber block;

	Assert(rows_max >= BLOOM_INDEX_GROUP_MIN && rows_max <= BLOOM_INDEX_GROUP_MAX &&
		   rows_max % 64 == 0 && rows <= rows_max);
	memset(&header, 0, sizeof(header));
	header.shape = *shape;
	header.shape.pending = 0;
	header.shape.grouped = 0;
	header.shape.open_group = InvalidBlockNumber;
	header.rows_max = rows_max;
	header.rows = rows;
	header.slice_bytes = rows_max / 8;
	header.slices_per_page = bloom_index_slices_per_page(rows_max);
	bloom_index_tid_form(&header, tids);
	header.slice_pages = bloom_index_slice_pages(shape->m, rows_max);
	bloom_index_slices_init(&slices, shape->m, header.slice_bytes, 0, rows, row_bits);

	if (need_lock)
		LockRelationForExtension(index, ExclusiveLock);
	for (uint32 i = 0; i < header.slice_pages + header.tid_pages; i++)
	{
		BlockNumber written;

		CHECK_FOR_INTERRUPTS();
		if (i < header.slice_pages)
		{
			bloom_index_slices_page(&slices, i);
			written = bloom_index_write_new_page(index, true, BLOOM_PAGE_SLICES,
												 bloom_index_fill_slices, &slices);
		}
		else
		{
			uint32		first = (i - header.slice_pages) * header.tids_per_page;
			BloomTidFill fill = {&header, tids + first,
			rows > first ? Min(rows - first, header.tids_per_page) : 0};

			written = bloom_index_write_new_page(index, true, BLOOM_PAGE_TIDS,
												 bloom_index_fill_tids, &fill);
		}
		if (i == 0)
			header.slice_first = written;
		else if (written != header.slice_first + i)
			elog(ERROR, "index \"%s\" grew elsewhere while a group was written",
				 RelationGetRelationName(index));
	}
	if (need_lock)
		UnlockRelationForExtension(index, ExclusiveLock);
	header.tid_first = header.slice_first + header.slice_pages;
	block = bloom_index_write_new_page(index, false, BLOOM_PAGE_GROUP, bloom_index_fill_group,
									   &header);

	/* the link: the group's next is the old head, and the metapage points to it */
	{
		Buffer		group_buffer = bloom_index_read(index, block, BUFFER_LOCK_EXCLUSIVE,
													BLOOM_PAGE_GROUP);

		state = GenericXLogStart(index);
		meta = BloomIndexPageMeta(GenericXLogRegisterBuffer(state, meta_buffer, 0));
		page = GenericXLogRegisterBuffer(state, group_buffer, 0);
		BloomIndexPageOpaque(page)->next = meta->group_head;
		meta->group_head = block;
		meta->groups++;
		meta->grouped_rows += rows;
		entry = bloom_index_meta_shape(meta, shape, true);
		if (entry != NULL)
		{
			entry->grouped += rows;
			entry->open_group = rows < rows_max ? block : InvalidBlockNumber;
		}
		GenericXLogFinish(state);
		UnlockReleaseBuffer(group_buffer);
	}
	bloom_index_slices_free(&slices);
	return block;
}

/*
 * Add rows rows to the open group at block, whose first free row is
 * first_row: their bits into every slice page (four pages a WAL record),
 * their TIDs, and the group's row count last (index.h, concurrency).  The
 * caller holds the metapage's exclusive lock.
 */
static void
bloom_index_group_add(Relation index, BlockNumber block, const BloomGroupHeader *header,
					  uint32 rows, ItemPointerData *tids, uint8 **row_bits)
{
	BloomSliceFill slices;
	Buffer		buffers[MAX_GENERIC_XLOG_PAGES];
	int			nbuffers = 0;
	GenericXLogState *state = NULL;
	uint32		first = header->rows;

	bloom_index_slices_init(&slices, header->shape.m, header->slice_bytes, header->rows, rows,
							row_bits);
	for (uint32 i = 0; i <= header->slice_pages; i++)
	{
		if (nbuffers == MAX_GENERIC_XLOG_PAGES || (i == header->slice_pages && nbuffers > 0))
		{
			GenericXLogFinish(state);
			for (int b = 0; b < nbuffers; b++)
				UnlockReleaseBuffer(buffers[b]);
			nbuffers = 0;
		}
		if (i == header->slice_pages)
			break;
		CHECK_FOR_INTERRUPTS();
		if (nbuffers == 0)
			state = GenericXLogStart(index);
		buffers[nbuffers] = bloom_index_read(index, header->slice_first + i, BUFFER_LOCK_EXCLUSIVE,
											 BLOOM_PAGE_SLICES);
		bloom_index_slices_page(&slices, i);
		bloom_index_fill_slices(GenericXLogRegisterBuffer(state, buffers[nbuffers], 0), &slices);
		nbuffers++;
	}

	/* an open group's TIDs are ItemPointerData: only a group written full is packed */
	if (header->tid_block_bits != 0)
		elog(ERROR, "index \"%s\": rows added to a group whose TIDs are packed",
			 RelationGetRelationName(index));
	for (uint32 t = first / header->tids_per_page;
		 t <= (first + rows - 1) / header->tids_per_page; t++)
	{
		Buffer		buffer = bloom_index_read(index, header->tid_first + t, BUFFER_LOCK_EXCLUSIVE,
											  BLOOM_PAGE_TIDS);
		ItemPointerData *page_tids;

		state = GenericXLogStart(index);
		page_tids = (ItemPointerData *) PageGetContents(GenericXLogRegisterBuffer(state, buffer, 0));
		for (uint32 r = Max(first, t * header->tids_per_page);
			 r < Min(first + rows, (t + 1) * header->tids_per_page); r++)
			page_tids[r % header->tids_per_page] = tids[r - first];
		GenericXLogFinish(state);
		UnlockReleaseBuffer(buffer);
	}

	{
		Buffer		buffer = bloom_index_read(index, block, BUFFER_LOCK_EXCLUSIVE, BLOOM_PAGE_GROUP);

		state = GenericXLogStart(index);
		BloomIndexPageGroup(GenericXLogRegisterBuffer(state, buffer, 0))->rows += rows;
		GenericXLogFinish(state);
		UnlockReleaseBuffer(buffer);
	}
	bloom_index_slices_free(&slices);
}

/* Where a pending tuple of a row being flushed lives, to delete it after. */
typedef struct BloomPendingItem
{
	BlockNumber block;
	OffsetNumber offset;
} BloomPendingItem;

/* A pending row being gathered for a flush, its chunks wherever they are. */
typedef struct BloomFlushRow
{
	ItemPointerData tid;		/* key */
	uint8	   *bits;
	uint64		bytes_seen;
	uint32		nitems;
	/* a sliced row has at most 9 chunks (2^19 bits in chunks of 8,000 bytes) */
	BloomPendingItem items[16];
} BloomFlushRow;

static int
bloom_pending_item_cmp(const void *a, const void *b)
{
	const BloomPendingItem *x = a;
	const BloomPendingItem *y = b;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return (int) x->offset - (int) y->offset;
}

/*
 * Move the first complete pending rows of the metapage's shape entry into
 * its open group, or a new one, as many as it has room for, then delete
 * their tuples from the pending pages.  False if fewer than
 * BLOOM_INDEX_FLUSH_ROWS complete rows (or the room) were found (the count
 * was high: a crash can leave that), in which case the count is corrected
 * and nothing moves.
 */
static bool
bloom_index_flush_shape(Relation index, Buffer meta_buffer, uint32 entry)
{
	BloomIndexMeta *meta = BloomIndexPageMeta(BufferGetPage(meta_buffer));
	BloomIndexShape shape = meta->shape[entry];
	BloomGroupHeader *open = NULL;
	uint32		rows_max;
	size_t		payload = bloom_payload_bytes(shape.m);
	BloomPendingItem *items = NULL;
	uint32		nitems = 0;
	uint32		items_max = 0;
	uint32		rows = 0;
	BlockNumber block = meta->pending_head;
	ItemPointerData *tids;
	uint8	  **row_bits;
	HTAB	   *chunked = NULL;

	/* the room: what the open group has left, or a new group's G */
	if (shape.open_group != InvalidBlockNumber)
	{
		open = bloom_index_read_group(index, shape.open_group, NULL);
		if (!bloom_index_shapes_equal(&open->shape, &shape) || open->rows >= open->rows_max)
			open = NULL;
	}
	rows_max = open ? open->rows_max - open->rows : bloom_index_new_group_rows(shape.m, shape.grouped);
	tids = palloc(rows_max * sizeof(ItemPointerData));
	row_bits = palloc(rows_max * sizeof(uint8 *));

	/*
	 * The first rows_max rows seen whole, in the chain's order; a row in
	 * chunks is whole once all its bytes are seen, wherever its chunks are.
	 */
	while (block != InvalidBlockNumber && rows < rows_max)
	{
		Buffer		buffer = bloom_index_read(index, block, BUFFER_LOCK_SHARE, BLOOM_PAGE_PENDING);
		Page		page = BufferGetPage(buffer);
		OffsetNumber max = PageGetMaxOffsetNumber(page);

		for (OffsetNumber off = FirstOffsetNumber; off <= max && rows < rows_max; off++)
		{
			ItemId		item = PageGetItemId(page, off);
			BloomPendingTuple *tuple = (BloomPendingTuple *) PageGetItem(page, item);
			BloomIndexShape tuple_shape = {tuple->m, tuple->hash_scheme, tuple->k,
			tuple->read_utf8, 0, 0};
			BloomFlushRow *row;
			BloomFlushRow single;
			const char *problem;
			bool		seen;

			if (!ItemIdIsNormal(item) || !bloom_index_shapes_equal(&tuple_shape, &shape))
				continue;
			problem = bloom_index_pending_problem(item, tuple);
			if (problem != NULL)
			{
				UnlockReleaseBuffer(buffer);
				bloom_index_pending_corrupted(index, block, off, problem);
			}
			if (tuple->chunk == 0 && tuple->last)
			{
				row = &single;
				seen = false;
			}
			else
			{
				row = bloom_index_chunked_row(&chunked, sizeof(BloomFlushRow), &tuple->tid, &seen);
			}
			if (!seen)
			{
				row->tid = tuple->tid;
				row->bits = palloc0(payload);
				row->bytes_seen = 0;
				row->nitems = 0;
			}
			/* more tuples than chunks (left by a crash): never moved */
			if (row->nitems == lengthof(row->items))
				continue;
			memcpy(row->bits + tuple->offset, tuple->bits, tuple->length);
			row->bytes_seen += tuple->length;
			row->items[row->nitems].block = block;
			row->items[row->nitems].offset = off;
			row->nitems++;
			if (row->bytes_seen != payload)
				continue;

			/* whole: the row moves, with its tuples */
			tids[rows] = row->tid;
			row_bits[rows] = row->bits;
			rows++;
			if (nitems + row->nitems > items_max)
			{
				items_max = Max(64, (nitems + row->nitems) * 2);
				items = items ? repalloc(items, items_max * sizeof(BloomPendingItem)) :
					palloc(items_max * sizeof(BloomPendingItem));
			}
			memcpy(items + nitems, row->items, row->nitems * sizeof(BloomPendingItem));
			nitems += row->nitems;
			row->bytes_seen = UINT64_MAX;	/* taken: a duplicate chunk adds nothing */
			row->nitems = lengthof(row->items);
		}
		block = BloomIndexPageOpaque(page)->next;
		UnlockReleaseBuffer(buffer);
	}
	if (chunked != NULL)
		hash_destroy(chunked);

	if (rows == 0 || rows < Min(rows_max, BLOOM_INDEX_FLUSH_ROWS))
	{
		GenericXLogState *state = GenericXLogStart(index);

		meta = BloomIndexPageMeta(GenericXLogRegisterBuffer(state, meta_buffer, 0));
		meta->shape[entry].pending = rows;
		GenericXLogFinish(state);
		return false;
	}

	if (open)
		bloom_index_group_add(index, shape.open_group, open, rows, tids, row_bits);
	else
		bloom_index_write_group(index, meta_buffer, &shape, rows_max, rows, tids, row_bits);

	/* now that the group is linked, the rows leave the pending pages */
	qsort(items, nitems, sizeof(BloomPendingItem), bloom_pending_item_cmp);
	for (uint32 i = 0; i < nitems;)
	{
		uint32		j = i;
		OffsetNumber *offsets = palloc(nitems * sizeof(OffsetNumber));
		Buffer		buffer = bloom_index_read(index, items[i].block, BUFFER_LOCK_EXCLUSIVE,
											  BLOOM_PAGE_PENDING);
		GenericXLogState *state = GenericXLogStart(index);
		Page		page = GenericXLogRegisterBuffer(state, buffer, 0);

		for (; j < nitems && items[j].block == items[i].block; j++)
			offsets[j - i] = items[j].offset;
		PageIndexMultiDelete(page, offsets, j - i);
		GenericXLogFinish(state);
		UnlockReleaseBuffer(buffer);
		pfree(offsets);
		i = j;
	}
	{
		GenericXLogState *state = GenericXLogStart(index);

		meta = BloomIndexPageMeta(GenericXLogRegisterBuffer(state, meta_buffer, 0));
		meta->shape[entry].pending -= Min(meta->shape[entry].pending, rows);
		meta->pending_rows -= Min(meta->pending_rows, rows);
		if (open)
		{
			meta->shape[entry].grouped += rows;
			meta->grouped_rows += rows;
			if (open->rows + rows >= open->rows_max)
				meta->shape[entry].open_group = InvalidBlockNumber;
		}
		/* the room freed is taken again from the chain's start */
		meta->pending_insert = meta->pending_head;
		GenericXLogFinish(state);
	}
	for (uint32 r = 0; r < rows; r++)
		pfree(row_bits[r]);
	pfree(row_bits);
	pfree(tids);
	if (items)
		pfree(items);
	return true;
}

/*
 * Move the pending rows of every shape with BLOOM_INDEX_FLUSH_ROWS of them
 * into groups; the caller holds the metapage's exclusive lock.
 */
void
bloom_index_flush(Relation index, Buffer meta_buffer)
{
	BloomIndexMeta *meta = BloomIndexPageMeta(BufferGetPage(meta_buffer));
	MemoryContext context = AllocSetContextCreate(CurrentMemoryContext, "bloom_slices flush",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old_context = MemoryContextSwitchTo(context);

	for (uint32 i = 0; i < meta->shapes; i++)
	{
		while (bloom_index_sliced(meta->shape[i].m) && meta->shape[i].pending >= BLOOM_INDEX_FLUSH_ROWS)
		{
			if (!bloom_index_flush_shape(index, meta_buffer, i))
				break;
			meta = BloomIndexPageMeta(BufferGetPage(meta_buffer));
			MemoryContextReset(context);
		}
	}
	MemoryContextSwitchTo(old_context);
	MemoryContextDelete(context);
}
