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
#include "storage/bufpage.h"
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
				new_buffer = bloom_index_new_buffer(index);
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

/* A new page of type, written whole by fill, one WAL record; its block. */
static BlockNumber
bloom_index_write_new_page(Relation index, uint16 type,
						   void (*fill) (Page page, void *arg), void *arg)
{
	Buffer		buffer = bloom_index_new_buffer(index);
	GenericXLogState *state = GenericXLogStart(index);
	Page		page = GenericXLogRegisterBuffer(state, buffer, GENERIC_XLOG_FULL_IMAGE);
	BlockNumber block = BufferGetBlockNumber(buffer);

	bloom_index_page_init(page, type);
	fill(page, arg);
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buffer);
	return block;
}

typedef struct BloomSliceFill
{
	uint32		rows;
	uint8	  **row_bits;
	uint32		slice_bytes;
	uint64		first;			/* first position of the page */
	uint64		end;			/* past its last */
} BloomSliceFill;

/* Transpose: bit p of row r becomes bit r of slice p. */
static void
bloom_index_fill_slices(Page page, void *arg)
{
	BloomSliceFill *fill = (BloomSliceFill *) arg;
	uint8	   *slices = (uint8 *) PageGetContents(page);
	uint64		first_byte = fill->first / 8;
	uint64		end_byte = (fill->end + 7) / 8;

	memset(slices, 0, (fill->end - fill->first) * fill->slice_bytes);
	for (uint32 r = 0; r < fill->rows; r++)
	{
		const uint8 *bits = fill->row_bits[r];
		uint8		mask = (uint8) (1 << (r % 8));
		uint32		column = r / 8;

		for (uint64 b = first_byte; b < end_byte; b++)
		{
			uint32		v = bits[b];

			while (v != 0)
			{
				uint64		p = b * 8 + pg_rightmost_one_pos32(v);

				v &= v - 1;
				if (p >= fill->first && p < fill->end)
					slices[(p - fill->first) * fill->slice_bytes + column] |= mask;
			}
		}
	}
	((PageHeader) page)->pd_lower = (slices + (fill->end - fill->first) * fill->slice_bytes) -
		(uint8 *) page;
}

typedef struct BloomTidFill
{
	const ItemPointerData *tids;
	uint32		count;
} BloomTidFill;

static void
bloom_index_fill_tids(Page page, void *arg)
{
	BloomTidFill *fill = (BloomTidFill *) arg;
	ItemPointerData *tids = (ItemPointerData *) PageGetContents(page);

	for (uint32 i = 0; i < BLOOM_INDEX_TIDS_PER_PAGE; i++)
		ItemPointerSetInvalid(&tids[i]);
	memcpy(tids, fill->tids, fill->count * sizeof(ItemPointerData));
	((PageHeader) page)->pd_lower = ((char *) (tids + BLOOM_INDEX_TIDS_PER_PAGE)) - (char *) page;
}

static void
bloom_index_fill_group(Page page, void *arg)
{
	BloomGroupHeader *header = BloomIndexPageGroup(page);
	BloomGroupHeader *source = (BloomGroupHeader *) arg;
	Size		size = offsetof(BloomGroupHeader, slice_page) +
		source->slice_pages * sizeof(BlockNumber);

	memcpy(header, source, size);
	((PageHeader) page)->pd_lower = ((char *) header + size) - (char *) page;
}

/*
 * Write rows rows of one shape (rows <= G) as a new group and link it in
 * front of the group list; the caller holds the metapage's exclusive lock.
 * The group's pages are written before its link, so no scan sees half.
 */
void
bloom_index_write_group(Relation index, Buffer meta_buffer, const BloomIndexShape *shape,
						uint32 rows, ItemPointerData *tids, uint8 **row_bits)
{
	uint32		rows_max = bloom_index_group_rows(shape->m);
	uint32		per_page = bloom_index_slices_per_page(rows_max);
	uint32		slice_pages = (uint32) ((shape->m + per_page - 1) / per_page);
	BloomGroupHeader *header = palloc0(offsetof(BloomGroupHeader, slice_page) +
									   slice_pages * sizeof(BlockNumber));
	BloomSliceFill slices = {rows, row_bits, rows_max / 8, 0, 0};
	GenericXLogState *state;
	BloomIndexMeta *meta;
	Page		page;
	BlockNumber block;

	Assert(rows_max > 0 && rows <= rows_max);
	header->shape = *shape;
	header->shape.pending = 0;
	header->rows_max = rows_max;
	header->rows = rows;
	header->slice_bytes = rows_max / 8;
	header->slices_per_page = per_page;
	header->tid_pages = (rows_max + BLOOM_INDEX_TIDS_PER_PAGE - 1) / BLOOM_INDEX_TIDS_PER_PAGE;
	header->slice_pages = slice_pages;

	for (uint32 i = 0; i < slice_pages; i++)
	{
		CHECK_FOR_INTERRUPTS();
		slices.first = (uint64) i * per_page;
		slices.end = Min(shape->m, slices.first + per_page);
		header->slice_page[i] = bloom_index_write_new_page(index, BLOOM_PAGE_SLICES,
														   bloom_index_fill_slices, &slices);
	}
	for (uint32 i = 0; i < header->tid_pages; i++)
	{
		uint32		first = i * BLOOM_INDEX_TIDS_PER_PAGE;
		BloomTidFill fill = {tids + first,
		rows > first ? Min(rows - first, BLOOM_INDEX_TIDS_PER_PAGE) : 0};

		header->tid_page[i] = bloom_index_write_new_page(index, BLOOM_PAGE_TIDS,
														 bloom_index_fill_tids, &fill);
	}
	block = bloom_index_write_new_page(index, BLOOM_PAGE_GROUP, bloom_index_fill_group, header);

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
		GenericXLogFinish(state);
		UnlockReleaseBuffer(group_buffer);
	}
	pfree(header);
}

/* Where a pending tuple of a row being flushed lives, to delete it after. */
typedef struct BloomPendingItem
{
	BlockNumber block;
	OffsetNumber offset;
} BloomPendingItem;

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
 * Move the first G complete pending rows of the metapage's shape entry into
 * a group, then delete their tuples from the pending pages.  False if fewer
 * than G complete rows were found (the count was high: a crash can leave
 * that), in which case the count is corrected and nothing moves.
 */
static bool
bloom_index_flush_shape(Relation index, Buffer meta_buffer, uint32 entry)
{
	BloomIndexMeta *meta = BloomIndexPageMeta(BufferGetPage(meta_buffer));
	BloomIndexShape shape = meta->shape[entry];
	uint32		rows_max = bloom_index_group_rows(shape.m);
	size_t		payload = bloom_payload_bytes(shape.m);
	ItemPointerData *tids = palloc(rows_max * sizeof(ItemPointerData));
	uint8	  **row_bits = palloc(rows_max * sizeof(uint8 *));
	BloomPendingItem *items = NULL;
	uint32		nitems = 0;
	uint32		items_max = 0;
	uint32		rows = 0;
	uint32		row_items = 0;	/* items of the row being read */
	bool		in_row = false;
	BlockNumber block = meta->pending_head;

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

			if (!ItemIdIsNormal(item) || !bloom_index_shapes_equal(&tuple_shape, &shape))
				continue;
			if (tuple->chunk == 0)
			{
				/* a row begun and not ended is dropped from the move */
				nitems -= in_row ? row_items : 0;
				row_bits[rows] = palloc0(payload);
				tids[rows] = tuple->tid;
				in_row = true;
				row_items = 0;
			}
			else if (!in_row || !ItemPointerEquals(&tuple->tid, &tids[rows]))
				continue;
			if ((uint64) tuple->offset + tuple->length > payload)
				ereport(ERROR,
						errcode(ERRCODE_INDEX_CORRUPTED),
						errmsg("index \"%s\" has a corrupted pending tuple at block %u",
							   RelationGetRelationName(index), block));
			memcpy(row_bits[rows] + tuple->offset, tuple->bits, tuple->length);
			if (nitems == items_max)
			{
				items_max = Max(64, items_max * 2);
				items = items ? repalloc(items, items_max * sizeof(BloomPendingItem)) :
					palloc(items_max * sizeof(BloomPendingItem));
			}
			items[nitems].block = block;
			items[nitems].offset = off;
			nitems++;
			row_items++;
			if (tuple->last)
			{
				rows++;
				in_row = false;
				row_items = 0;
			}
		}
		block = BloomIndexPageOpaque(page)->next;
		UnlockReleaseBuffer(buffer);
	}
	if (in_row)
		nitems -= row_items;

	if (rows < rows_max)
	{
		GenericXLogState *state = GenericXLogStart(index);

		meta = BloomIndexPageMeta(GenericXLogRegisterBuffer(state, meta_buffer, 0));
		meta->shape[entry].pending = rows;
		GenericXLogFinish(state);
		return false;
	}

	bloom_index_write_group(index, meta_buffer, &shape, rows, tids, row_bits);

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
 * Move every G rows of one shape pending into a group; the caller holds the
 * metapage's exclusive lock.
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
		uint32		rows_max = bloom_index_group_rows(meta->shape[i].m);

		while (rows_max > 0 && meta->shape[i].pending >= rows_max)
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
