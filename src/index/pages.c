/*
 * index/pages.c: bloom_slices's pages: their initialization, the checked
 * read every page goes through, new pages, and the sizes of a group.
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"
#include "encoding/encoding.h"

#include "storage/indexfsm.h"
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

/*
 * Refuse a page that is not one of ours of the type expected: a damaged
 * page is a clean ERROR, never a read of garbage.
 */
void
bloom_index_check_page(Relation index, Page page, BlockNumber block, uint16 type)
{
	BloomIndexOpaque *opaque;

	if (PageIsNew(page) ||
		((PageHeader) page)->pd_special != BLCKSZ - MAXALIGN(sizeof(BloomIndexOpaque)))
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" contains a corrupted page at block %u",
					   RelationGetRelationName(index), block),
				errdetail("The page is empty or its special space has the wrong size."),
				errhint("Please REINDEX it."));
	opaque = BloomIndexPageOpaque(page);
	if (opaque->page_id != BLOOM_INDEX_PAGE_ID || opaque->type != type)
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" contains a corrupted page at block %u",
					   RelationGetRelationName(index), block),
				errdetail("Expected a page of type %u with id %04X, found type %u with id %04X.",
						  type, BLOOM_INDEX_PAGE_ID, opaque->type, opaque->page_id),
				errhint("Please REINDEX it."));
}

/* Read block, lock it in lockmode and check that it is a page of type. */
Buffer
bloom_index_read(Relation index, BlockNumber block, int lockmode, uint16 type)
{
	Buffer		buffer;

	buffer = ReadBuffer(index, block);
	LockBuffer(buffer, lockmode);
	PG_TRY();
	{
		bloom_index_check_page(index, BufferGetPage(buffer), block, type);
	}
	PG_CATCH();
	{
		UnlockReleaseBuffer(buffer);
		PG_RE_THROW();
	}
	PG_END_TRY();
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
 * A new page at the end of the index, locked exclusively.  Pages are never
 * freed, so the free space map is not asked.
 */
Buffer
bloom_index_new_buffer(Relation index)
{
	Buffer		buffer;
	bool		need_lock = !RELATION_IS_LOCAL(index);

	if (need_lock)
		LockRelationForExtension(index, ExclusiveLock);
	buffer = ReadBuffer(index, P_NEW);
	LockBuffer(buffer, BUFFER_LOCK_EXCLUSIVE);
	if (need_lock)
		UnlockRelationForExtension(index, ExclusiveLock);
	return buffer;
}

/*
 * The largest G for a shape of m bits: a power of two from
 * BLOOM_INDEX_GROUP_MIN to BLOOM_INDEX_GROUP_MAX whose slice pages a group
 * header can list; 0 when filters of m bits stay pending (index.h).
 */
uint32
bloom_index_group_rows(uint64 m)
{
	uint32		rows = BLOOM_INDEX_GROUP_MAX;

	if (m == 0 || m > BLOOM_INDEX_SLICED_M_MAX)
		return 0;
	while (rows > BLOOM_INDEX_GROUP_MIN &&
		   (m + bloom_index_slices_per_page(rows) - 1) / bloom_index_slices_per_page(rows) >
		   BLOOM_INDEX_SLICE_PAGES_MAX)
		rows /= 2;
	return rows;
}

/* G of a shape's next group, when grouped of its rows are in groups already. */
uint32
bloom_index_new_group_rows(uint64 m, uint32 grouped)
{
	uint32		largest = bloom_index_group_rows(m);
	uint32		rows = BLOOM_INDEX_GROUP_FIRST;

	while (rows * 2 <= grouped / 4 && rows * 2 <= largest)
		rows *= 2;
	return Min(rows, largest);
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

/* Check what a group's header says before trusting it. */
void
bloom_index_check_group(Relation index, BlockNumber block, const BloomGroupHeader *group)
{
	uint32		rows_max = group->rows_max;

	if (rows_max < BLOOM_INDEX_GROUP_MIN || rows_max > bloom_index_group_rows(group->shape.m) ||
		(rows_max & (rows_max - 1)) != 0 || group->rows > rows_max ||
		group->slice_bytes != rows_max / 8 || group->shape.k == 0 ||
		group->slices_per_page != bloom_index_slices_per_page(rows_max) ||
		group->slice_pages != (group->shape.m + group->slices_per_page - 1) / group->slices_per_page ||
		group->tid_pages != (rows_max + BLOOM_INDEX_TIDS_PER_PAGE - 1) / BLOOM_INDEX_TIDS_PER_PAGE ||
		offsetof(BloomGroupHeader, slice_page) + group->slice_pages * sizeof(BlockNumber) >
		BLOOM_INDEX_PAGE_BYTES)
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
	BloomGroupHeader *header = BloomIndexPageGroup(page);
	Size		size;

	PG_TRY();
	{
		bloom_index_check_group(index, block, header);
	}
	PG_CATCH();
	{
		UnlockReleaseBuffer(buffer);
		PG_RE_THROW();
	}
	PG_END_TRY();
	size = offsetof(BloomGroupHeader, slice_page) + header->slice_pages * sizeof(BlockNumber);
	header = memcpy(palloc(size), header, size);
	if (next != NULL)
		*next = BloomIndexPageOpaque(page)->next;
	UnlockReleaseBuffer(buffer);
	return header;
}
