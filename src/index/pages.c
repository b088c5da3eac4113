/*
 * index/pages.c: bloom_slices's pages: their initialization, the checked
 * read every page goes through, new pages, and the sizes of a group.
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"
#include "encoding/encoding.h"

#include "access/tableam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "port/pg_bitutils.h"
#include "storage/indexfsm.h"
#include "utils/hsearch.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

void
bloom_index_page_init(Page page, uint16 type)
{
	BloomIndexOpaque *opaque;

	PageInit(page, BLCKSZ, sizeof(BloomIndexOpaque));
	opaque = BloomIndexPageOpaque(page);
	opaque->next = InvalidBlockNumber;
	opaque->type = type;
	opaque->page_id = BLOOM_INDEX_PAGE_ID;
}

/* What is wrong with a page that should be ours of this type, or NULL. */
static char *
bloom_index_page_problem(Page page, uint16 type)
{
	BloomIndexOpaque *opaque;

	if (PageIsNew(page) ||
		((PageHeader) page)->pd_special != BLCKSZ - MAXALIGN(sizeof(BloomIndexOpaque)))
		return pstrdup("The page is empty or its special space has the wrong size.");
	opaque = BloomIndexPageOpaque(page);
	if (opaque->page_id != BLOOM_INDEX_PAGE_ID || opaque->type != type)
		return psprintf("Expected a page of type %u with id %04X, found type %u with id %04X.",
						type, BLOOM_INDEX_PAGE_ID, opaque->type, opaque->page_id);
	return NULL;
}

pg_noreturn static void
bloom_index_corrupted_page(Relation index, BlockNumber block, const char *problem)
{
	ereport(ERROR,
			errcode(ERRCODE_INDEX_CORRUPTED),
			errmsg("index \"%s\" contains a corrupted page at block %u",
				   RelationGetRelationName(index), block),
			errdetail_internal("%s", problem),
			errhint("Please REINDEX it."));
}

/*
 * Refuse a block number past the index's end, which a damaged link can
 * hold: the size is known from the last time it was asked (rd_amcache; the
 * index only grows), and asked again only past it.
 */
static void
bloom_index_check_block(Relation index, BlockNumber block)
{
	BlockNumber *known = (BlockNumber *) index->rd_amcache;

	if (known == NULL)
	{
		known = MemoryContextAlloc(index->rd_indexcxt, sizeof(BlockNumber));
		*known = 0;
		index->rd_amcache = known;
	}
	if (block < *known)
		return;
	*known = RelationGetNumberOfBlocks(index);
	if (block >= *known)
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" refers to block %u past its end (%u blocks)",
					   RelationGetRelationName(index), block, *known),
				errhint("Please REINDEX it."));
}

/* Read block, lock it in lockmode and check that it is a page of type. */
Buffer
bloom_index_read(Relation index, BlockNumber block, int lockmode, uint16 type)
{
	Buffer		buffer;
	char	   *problem;

	bloom_index_check_block(index, block);
	buffer = ReadBuffer(index, block);
	LockBuffer(buffer, lockmode);
	problem = bloom_index_page_problem(BufferGetPage(buffer), type);
	if (unlikely(problem != NULL))
	{
		UnlockReleaseBuffer(buffer);
		bloom_index_corrupted_page(index, block, problem);
	}
	return buffer;
}

/* The metapage's contents, once its magic and version are checked. */
BloomIndexMeta *
bloom_index_meta_checked(Relation index, Page page)
{
	BloomIndexMeta *meta = BloomIndexPageMeta(page);

	if (meta->magic != BLOOM_INDEX_MAGIC)
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" is not a bloom_slices index", RelationGetRelationName(index)),
				errhint("Please REINDEX it."));
	if (meta->version != BLOOM_INDEX_VERSION)
		ereport(ERROR,
				errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				errmsg("index \"%s\" has layout version %u; this bloomfilter reads version %u",
					   RelationGetRelationName(index), meta->version, BLOOM_INDEX_VERSION),
				errhint("REINDEX it with this version of bloomfilter."));
	if (meta->shapes > BLOOM_INDEX_SHAPES)
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" has a corrupted metapage", RelationGetRelationName(index)),
				errdetail("It counts %u shapes; at most %u fit.", meta->shapes, BLOOM_INDEX_SHAPES),
				errhint("Please REINDEX it."));
	return meta;
}

/*
 * A new page at the end of the index, locked exclusively; extension_locked:
 * the caller holds the relation extension lock already.  Pages are never
 * freed, so the free space map is not asked.
 */
Buffer
bloom_index_new_buffer(Relation index, bool extension_locked)
{
	Buffer		buffer;
	bool		need_lock = !extension_locked && !RELATION_IS_LOCAL(index);

	if (need_lock)
		LockRelationForExtension(index, ExclusiveLock);
	buffer = ReadBuffer(index, P_NEW);
	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	if (need_lock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return buffer;
}

/*
 * The largest G that fills its slice pages (index.h: 64 * floor(words / s)
 * rows, s slices a page) and is at most rows; 0 below 64.
 */
uint32
bloom_index_filling_rows(uint32 rows)
{
	for (uint32 s = 1; s <= BLOOM_INDEX_PAGE_WORDS; s++)
		if (64 * (BLOOM_INDEX_PAGE_WORDS / s) <= rows)
			return 64 * (BLOOM_INDEX_PAGE_WORDS / s);
	return 0;
}

/* The slice pages of a group of rows_max rows of a shape of m bits. */
uint32
bloom_index_slice_pages(uint64 m, uint32 rows_max)
{
	uint32		per_page = bloom_index_slices_per_page(rows_max);

	return (uint32) ((m + per_page - 1) / per_page);
}

/*
 * The largest G of an open group of a shape of m bits: about
 * BLOOM_INDEX_OPEN_MAX rows, fewer when a flush would write more than
 * BLOOM_INDEX_SLICE_PAGES_MAX slice pages; 0 when filters of m bits stay
 * pending (index.h).
 */
uint32
bloom_index_group_rows(uint64 m)
{
	if (!bloom_index_sliced(m))
		return 0;
	for (uint32 rows = BLOOM_INDEX_OPEN_MAX; rows > BLOOM_INDEX_GROUP_MIN; rows /= 2)
		if (bloom_index_slice_pages(m, bloom_index_filling_rows(rows)) <= BLOOM_INDEX_SLICE_PAGES_MAX)
			return bloom_index_filling_rows(rows);
	return BLOOM_INDEX_GROUP_MIN;
}

/*
 * G of the build's groups of a shape of m bits: the largest whose rows'
 * bits fit budget bytes (maintenance_work_mem), and no less than an open
 * group's.
 */
uint32
bloom_index_build_group_rows(uint64 m, Size budget)
{
	uint32		open = bloom_index_group_rows(m);
	Size		fit = open > 0 ? budget / bloom_payload_bytes(m) : 0;

	return Max(open, bloom_index_filling_rows((uint32) Min(fit, BLOOM_INDEX_GROUP_MAX)));
}

/* G of a shape's next open group, when grouped of its rows are in groups already. */
uint32
bloom_index_new_group_rows(uint64 m, uint32 grouped)
{
	uint32		largest = bloom_index_group_rows(m);
	uint32		rows = BLOOM_INDEX_GROUP_FIRST;

	while (rows * 2 <= grouped / 4 && rows * 2 <= largest)
		rows *= 2;
	return bloom_index_filling_rows(Min(rows, largest));
}

uint32
bloom_index_slices_per_page(uint32 rows_max)
{
	return BLOOM_INDEX_PAGE_BYTES / (rows_max / 8);
}

void
bloom_index_shape_of(const BloomHeader *header, BloomIndexShape *shape)
{
	memset(shape, 0, sizeof(*shape));
	shape->m = header->m;
	shape->hash_scheme = header->hash_scheme;
	shape->k = header->k;
	shape->read_utf8 = bloom_flags_read_utf8(header->flags) ? 1 : 0;
	shape->open_group = InvalidBlockNumber;
}

bool
bloom_index_shapes_equal(const BloomIndexShape *a, const BloomIndexShape *b)
{
	return a->m == b->m && a->hash_scheme == b->hash_scheme && a->k == b->k &&
		a->read_utf8 == b->read_utf8;
}

/* Whether a group's header names a TID form bloom_index_tid_form makes. */
static bool
bloom_index_tid_form_valid(const BloomGroupHeader *group)
{
	if (group->tid_block_bits == 0)
		return group->tid_offset_bits == 0 && group->tids_per_page == BLOOM_INDEX_TIDS_PER_PAGE;
	return group->rows == group->rows_max && group->tid_block_bits <= 32 &&
		group->tid_offset_bits >= 1 && group->tid_offset_bits <= 16 &&
		group->tids_per_page == BLOOM_TIDS_PACKED_BITS(group->tid_block_bits + group->tid_offset_bits);
}

/* Check what a group's header says before trusting it. */
void
bloom_index_check_group(Relation index, BlockNumber block, const BloomGroupHeader *group)
{
	uint32		rows_max = group->rows_max;

	if (rows_max < BLOOM_INDEX_GROUP_MIN || rows_max > BLOOM_INDEX_GROUP_MAX ||
		rows_max % 64 != 0 || group->rows > rows_max ||
		!bloom_index_sliced(group->shape.m) ||
		group->slice_bytes != rows_max / 8 || group->shape.k == 0 ||
		group->slices_per_page != bloom_index_slices_per_page(rows_max) ||
		group->slice_pages != bloom_index_slice_pages(group->shape.m, rows_max) ||
		!bloom_index_tid_form_valid(group) ||
		group->tid_pages != (rows_max + group->tids_per_page - 1) / group->tids_per_page ||
		group->slice_first > MaxBlockNumber - group->slice_pages ||
		group->tid_first > MaxBlockNumber - group->tid_pages)
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" has a corrupted group header at block %u",
					   RelationGetRelationName(index), block),
				errhint("Please REINDEX it."));
}

/* A checked copy of the header of the group at block, and the next group's block. */
BloomGroupHeader *
bloom_index_read_group(Relation index, BlockNumber block, BlockNumber *next)
{
	Buffer		buffer = bloom_index_read(index, block, BUFFER_LOCK_SHARE, BLOOM_PAGE_GROUP);
	Page		page = BufferGetPage(buffer);
	BloomGroupHeader *header = palloc(sizeof(BloomGroupHeader));

	/* checked once copied, so that no lock is held on an ERROR */
	memcpy(header, BloomIndexPageGroup(page), sizeof(BloomGroupHeader));
	if (next != NULL)
		*next = BloomIndexPageOpaque(page)->next;
	UnlockReleaseBuffer(buffer);
	bloom_index_check_group(index, block, header);
	return header;
}

/* The bits that hold v: 1 for 0 and 1. */
static uint32
bloom_index_bits_for(uint64 v)
{
	return v == 0 ? 1 : (uint32) pg_leftmost_one_pos64(v) + 1;
}

/*
 * The form of a group's TID pages (index.h's head), in its header: packed
 * for a group written full, with the fewest block bits B that hold every
 * page's span (fewer bits, more rows to a page and more span to hold; 32
 * always do), and ItemPointerData otherwise.  Sets tids_per_page and
 * tid_pages.
 */
void
bloom_index_tid_form(BloomGroupHeader *group, const ItemPointerData *tids)
{
	uint32		offset_bits = 1;

	group->tid_block_bits = 0;
	group->tid_offset_bits = 0;
	group->tids_per_page = BLOOM_INDEX_TIDS_PER_PAGE;
	if (group->rows == group->rows_max)
	{
		for (uint32 r = 0; r < group->rows; r++)
			offset_bits = Max(offset_bits,
							  bloom_index_bits_for(ItemPointerGetOffsetNumberNoCheck(&tids[r])));
		for (uint32 block_bits = 1; block_bits <= 32 && group->tid_block_bits == 0; block_bits++)
		{
			uint32		per_page = BLOOM_TIDS_PACKED_BITS(block_bits + offset_bits);
			bool		fits = per_page > BLOOM_INDEX_TIDS_PER_PAGE;

			for (uint32 first = 0; first < group->rows && fits; first += per_page)
			{
				BlockNumber low = InvalidBlockNumber;
				BlockNumber high = 0;

				for (uint32 r = first; r < Min(group->rows, first + per_page); r++)
				{
					low = Min(low, ItemPointerGetBlockNumberNoCheck(&tids[r]));
					high = Max(high, ItemPointerGetBlockNumberNoCheck(&tids[r]));
				}
				fits = block_bits == 32 || (uint64) (high - low) < (UINT64CONST(1) << block_bits);
			}
			if (fits)
			{
				group->tid_block_bits = block_bits;
				group->tid_offset_bits = offset_bits;
				group->tids_per_page = per_page;
			}
		}
	}
	group->tid_pages = (group->rows_max + group->tids_per_page - 1) / group->tids_per_page;
}

/* Write count TIDs as a TID page's contents, in the group's form; the rest none. */
void
bloom_index_fill_tid_page(const BloomGroupHeader *group, char *contents,
						  const ItemPointerData *tids, uint32 count)
{
	uint32		width = group->tid_block_bits + group->tid_offset_bits;
	BlockNumber first = InvalidBlockNumber;

	Assert(count <= group->tids_per_page);
	if (group->tid_block_bits == 0)
	{
		ItemPointerData *page_tids = (ItemPointerData *) contents;

		for (uint32 i = 0; i < group->tids_per_page; i++)
			ItemPointerSetInvalid(&page_tids[i]);
		memcpy(page_tids, tids, count * sizeof(ItemPointerData));
		return;
	}
	memset(contents, 0, BLOOM_INDEX_PAGE_BYTES);
	for (uint32 i = 0; i < count; i++)
		first = Min(first, ItemPointerGetBlockNumberNoCheck(&tids[i]));
	memcpy(contents, &first, sizeof(first));
	for (uint32 i = 0; i < count; i++)
	{
		uint64		bit = (uint64) i * width;
		uint8	   *at = (uint8 *) contents + BLOOM_TIDS_PACKED_HEADER + bit / 8;
		uint64		entry = (uint64) (ItemPointerGetBlockNumberNoCheck(&tids[i]) - first)
			<< group->tid_offset_bits | ItemPointerGetOffsetNumberNoCheck(&tids[i]);

		bf_store_le64(at, bf_load_le64(at) | entry << (bit % 8));
	}
}

/* Mark row i of a TID page removed (VACUUM). */
void
bloom_index_remove_page_tid(const BloomGroupHeader *group, char *contents, uint32 i)
{
	uint64		bit = (uint64) i * (group->tid_block_bits + group->tid_offset_bits);
	uint8	   *at = (uint8 *) contents + BLOOM_TIDS_PACKED_HEADER + bit / 8;

	if (group->tid_block_bits == 0)
		ItemPointerSetInvalid((ItemPointerData *) contents + i);
	else
		bf_store_le64(at, bf_load_le64(at) &
					  ~(((UINT64CONST(1) << group->tid_offset_bits) - 1) << (bit % 8)));
}

/*
 * The blocks of the index's table now, or InvalidBlockNumber if its table
 * access method is not heap's, whose TIDs need not name blocks of its file.
 * Whoever reads the index holds a lock on the table.
 */
BlockNumber
bloom_index_table_blocks(Relation index)
{
	Relation	table = relation_open(index->rd_index->indrelid, NoLock);
	BlockNumber blocks = InvalidBlockNumber;

	if (table->rd_tableam == GetHeapamTableAmRoutine())
		blocks = RelationGetNumberOfBlocks(table);
	relation_close(table, NoLock);
	return blocks;
}

/*
 * The rest of bloom_index_check_tid (index/index.h), for a TID it does not
 * pass at once: ERROR for an offset no heap page has; for a block past
 * *heap_blocks, the table measured again first, and ERROR if the block is
 * past its end still.
 */
void
bloom_index_check_tid_slow(Relation index, BlockNumber block, ItemPointer tid,
						   BlockNumber *heap_blocks)
{
	OffsetNumber offset = ItemPointerGetOffsetNumberNoCheck(tid);
	BlockNumber heap_block = ItemPointerGetBlockNumberNoCheck(tid);

	if (offset < FirstOffsetNumber || offset > MaxHeapTuplesPerPage)
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" holds an invalid heap TID (%u,%u) at block %u",
					   RelationGetRelationName(index), heap_block, offset, block),
				errhint("Please REINDEX it."));
	if (heap_block >= *heap_blocks)
		*heap_blocks = bloom_index_table_blocks(index);
	if (heap_block >= *heap_blocks)
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" holds an invalid heap TID (%u,%u) at block %u",
					   RelationGetRelationName(index), heap_block, offset, block),
				errdetail("The table has %u blocks.", *heap_blocks),
				errhint("Please REINDEX it."));
}

/*
 * The entry of a pending row of several chunks in rows, a table keyed by
 * heap TID (created at the first such row) of entry_size bytes each: a
 * row's chunks need not be next to each other in the chain.  *seen says
 * whether it was there.
 */
void *
bloom_index_chunked_row(HTAB **rows, Size entry_size, ItemPointer tid, bool *seen)
{
	if (*rows == NULL)
	{
		HASHCTL		control = {0};

		control.keysize = sizeof(ItemPointerData);
		control.entrysize = entry_size;
		control.hcxt = CurrentMemoryContext;
		*rows = hash_create("bloom_slices chunked rows", 64, &control,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	return hash_search(*rows, tid, HASH_ENTER, seen);
}

/*
 * What is wrong with a pending tuple (item is its line pointer), or NULL:
 * the rules every reader of the pending chain checks before using one.
 */
const char *
bloom_index_pending_problem(ItemId item, const BloomPendingTuple *tuple)
{
	OffsetNumber heap_offset;

	if (ItemIdGetLength(item) < BLOOM_PENDING_HEADER ||
		ItemIdGetLength(item) != BLOOM_PENDING_HEADER + tuple->length)
		return "A pending tuple's length disagrees with its item's.";
	heap_offset = ItemPointerGetOffsetNumberNoCheck(&tuple->tid);
	if (tuple->m < 1 || tuple->m > BLOOM_M_MAX || tuple->k < BLOOM_K_MIN ||
		tuple->k > BLOOM_K_MAX || tuple->hash_scheme < 1 ||
		tuple->hash_scheme > BLOOM_HASH_SCHEME_MAX || tuple->read_utf8 > 1 ||
		tuple->last > 1 || heap_offset < FirstOffsetNumber || heap_offset > MaxHeapTuplesPerPage)
		return "A pending tuple has an invalid shape or heap TID.";
	if ((uint64) tuple->offset + tuple->length > bloom_payload_bytes(tuple->m) ||
		tuple->length == 0 ||
		tuple->offset != (uint64) tuple->chunk * BLOOM_PENDING_CHUNK ||
		(tuple->last && (uint64) tuple->offset + tuple->length != bloom_payload_bytes(tuple->m)))
		return "A pending tuple's chunk is out of place.";
	return NULL;
}

/* Refuse a damaged pending tuple: ERROR XX002 (the caller holds no lock). */
void
bloom_index_pending_corrupted(Relation index, BlockNumber block, OffsetNumber offset,
							  const char *problem)
{
	ereport(ERROR,
			errcode(ERRCODE_INDEX_CORRUPTED),
			errmsg("index \"%s\" has a corrupted pending tuple at block %u, item %u",
				   RelationGetRelationName(index), block, offset),
			errdetail_internal("%s", problem),
			errhint("Please REINDEX it."));
}
