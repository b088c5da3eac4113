/*
 * index/index.h: bloom_slices, the index access method over a column of
 * filters, which answers "which stored filters may contain x?" by reading
 * only the k bit positions x probes, across all the filters at once.
 *
 * Design (the measurements behind it: doc/reference.md, "The index", and
 * doc/benchmarks.md, "The index bloom_slices")
 * ----------------------------------------------------
 *
 * The filters of one shape (m, k, hash scheme and the text reading flag) are
 * kept bit-sliced, as BitFunnel (SIGIR 2017) keeps its signatures: G rows
 * form a group, and for each bit position p of the shape a slice of G bits
 * says which of the group's rows have bit p set.  A lookup of x computes its
 * k positions in the group's shape, reads those k slices and ANDs them: the
 * rows left are exactly the rows whose filter has all of x's bits, which is
 * what f @> x tests, so the index is exact and nothing needs a recheck.  The
 * slices take the filters' own bits, and a lookup reads k slices of G/8
 * bytes per group instead of every filter.
 *
 * New rows first go to the pending area: a chain of ordinary pages with
 * one tuple per row (or per 8,000-byte chunk of a larger filter) holding
 * the filter's bits as they are.  A lookup tests each pending row's k bits
 * directly.  When BLOOM_INDEX_FLUSH_ROWS rows of one shape are pending, the
 * insert that makes them so moves them into the shape's open group (the
 * flush), starting a new group when there is none or it is full: each
 * slice page of the group takes the rows' bits in one write, so a flush
 * costs a page write per slice page for 256 rows.  VACUUM flushes too.
 * The build writes full groups and leaves the rest to the flush.
 *
 * G is a multiple of 64 up to 65,280, and fills the slice pages: a page
 * holds s slices of 64 * floor(1,020 / s) bits (BLOOM_INDEX_PAGE_WORDS is
 * 1,020 words of 64 bits), so a page wastes at most s / 1,020 of itself.
 * The larger G, the fewer pages a lookup reads (a header and k slice pages
 * per group, whatever G is) and the more pages a flush writes (every slice
 * page of the group, for 256 rows).  So the build, which writes each page
 * once, makes groups of the largest G whose rows fit maintenance_work_mem
 * (32,640 rows of 1.2 kB filters at the default 64 MB: a lookup at
 * 1,000,000 such filters reads 32 headers and 224 slice pages; 16 and 112
 * at 1 GB), and the flush makes open groups that grow: a shape's first has
 * 256 rows, and each new one a quarter of the rows the shape has in groups,
 * up to about 8,192 rows and at most BLOOM_INDEX_SLICE_PAGES_MAX slice pages
 * (8,128 rows of 1.2 kB filters, 1,024 of 12 kB ones).  So the space left
 * unused in open groups is at most about a quarter of the index.  Filters of
 * more than 2^19 bits (64 kB) stay pending: so few of them fit a table that
 * testing each is cheap enough.
 *
 * A group's slice pages, then its TID pages, are consecutive blocks,
 * written while the relation extension lock is held: its header names the
 * first of each.

 * Pages (all with the special space BloomIndexOpaque, whose page_id and
 * type a reader checks before anything else; a mismatch is ERROR XX002):
 *
 *     block 0      the metapage: the chains' heads, counts, and the number of
 *                  rows pending per shape (BloomIndexMeta)
 *     PENDING      pending tuples (BloomPendingTuple), linked by next
 *     GROUP        a group's header (BloomGroupHeader): its shape, rows, and
 *                  the first blocks of its slice pages and TID pages;
 *                  groups are linked by next, newest first
 *     TIDS         the heap TIDs of tids_per_page of a group's rows, in row
 *                  order (below, "TID pages")
 *     SLICES       slices_per_page slices of G/8 bytes, position order
 *
 * Concurrency: inserts, flushes and VACUUM's changes of the pending chain
 * hold the metapage's exclusive lock, which serializes them.  A scan reads
 * the pending chain first and the group list after: a flush links its group
 * into the list before it deletes the rows from the pending pages, so a row
 * that a scan does not find pending is in a group it reads afterwards.  A
 * row may be found twice, which a bitmap does not mind; a plain index scan
 * (amgettuple) sorts the rows it found and returns each once, in heap
 * order.  A flush into an open group writes the slices and TIDs of the new
 * rows first and the group's row count last; a scan reads the count first
 * and ignores the rows past it, which it found pending.  Pending pages never
 * leave the chain.
 *
 * TID pages: a group's TIDs are in one of two forms, which its header's
 * tid_block_bits names.  0: ItemPointerData, 1,360 to a page, an invalid one
 * being a row VACUUM removed; an open group's TIDs come a flush at a time,
 * from anywhere in the table.  B > 0, packed, for a group written full (the
 * build's, whose TIDs are known when it is written and never added to): the
 * page's first heap block (uint32), then one entry of B + O bits per row, a
 * little-endian bit string, (block - first block) << O | offset, an offset of
 * 0 being a row VACUUM removed.  B is the fewest bits that hold every page's
 * span of blocks (a build reads the table in order, so a page's rows lie
 * close), O those of the largest offset: rows of 1.2 kB filters take 13 bits,
 * about 5,000 to a page, and a lookup reads about a quarter of the TID pages.
 *
 * WAL: every change is a generic WAL record (access/generic_xlog.h), as in
 * contrib/bloom, so replay, standbys and crash recovery need no code of
 * ours.  A crash in the middle of a flush can leave a group's pages
 * unlinked (space lost until REINDEX) or a group linked whose rows are still
 * pending (each found twice): never a row missing.
 *
 * The layout is versioned by BLOOM_INDEX_VERSION in the metapage; an index
 * of another version is refused with a hint to REINDEX.
 */
#ifndef BLOOM_INDEX_H
#define BLOOM_INDEX_H

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/htup_details.h"
#include "access/itup.h"
#include "nodes/execnodes.h"
#include "nodes/tidbitmap.h"
#include "storage/bufmgr.h"
#include "utils/relcache.h"

#include "core/core.h"
#include "core/format.h"

#define BLOOM_INDEX_MAGIC 0x424C5349	/* "BLSI" */
#define BLOOM_INDEX_VERSION 3
#define BLOOM_INDEX_PAGE_ID 0xB15C

#define BLOOM_INDEX_METAPAGE 0

/* page types */
#define BLOOM_PAGE_META 1
#define BLOOM_PAGE_PENDING 2
#define BLOOM_PAGE_GROUP 3
#define BLOOM_PAGE_TIDS 4
#define BLOOM_PAGE_SLICES 5

typedef struct BloomIndexOpaque
{
	BlockNumber next;			/* PENDING: next in the chain; GROUP: next group */
	uint16		type;			/* BLOOM_PAGE_* */
	uint16		page_id;		/* BLOOM_INDEX_PAGE_ID */
} BloomIndexOpaque;

#define BloomIndexPageOpaque(page) ((BloomIndexOpaque *) PageGetSpecialPointer(page))

/* Bytes a page offers its contents (all but the header and the special space). */
#define BLOOM_INDEX_PAGE_BYTES \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(BloomIndexOpaque)))

/* A shape as the index groups rows by: what decides a value's positions. */
typedef struct BloomIndexShape
{
	uint64		m;
	uint8		hash_scheme;
	uint8		k;
	uint8		read_utf8;		/* bloom_flags_read_utf8() of the filter */
	uint8		reserved;
	/* in the metapage only: */
	uint32		pending;		/* rows of this shape pending */
	uint32		grouped;		/* rows of this shape written into groups */
	BlockNumber open_group;		/* its group with room, or InvalidBlockNumber */
} BloomIndexShape;

/* The metapage keeps a pending count for this many shapes; others never flush. */
#define BLOOM_INDEX_SHAPES 64

typedef struct BloomIndexMeta
{
	uint32		magic;
	uint32		version;
	BlockNumber pending_head;	/* first page of the pending chain */
	BlockNumber pending_tail;	/* last page of the pending chain */
	BlockNumber pending_insert; /* where an insert starts looking for room */
	BlockNumber group_head;		/* newest group, InvalidBlockNumber if none */
	uint32		groups;
	uint32		pending_pages;
	uint64		pending_rows;
	uint64		grouped_rows;	/* rows in groups, removed ones included */
	uint32		shapes;			/* entries used in shape[] */
	uint32		reserved;
	BloomIndexShape shape[BLOOM_INDEX_SHAPES];
} BloomIndexMeta;

#define BloomIndexPageMeta(page) ((BloomIndexMeta *) PageGetContents(page))

/* TIDs per TIDS page; the sizes of a group (index.h's head) */
#define BLOOM_INDEX_TIDS_PER_PAGE ((uint32) (BLOOM_INDEX_PAGE_BYTES / sizeof(ItemPointerData)))
#define BLOOM_INDEX_PAGE_WORDS (BLOOM_INDEX_PAGE_BYTES / 8)
#define BLOOM_INDEX_GROUP_MAX (64 * BLOOM_INDEX_PAGE_WORDS)
#define BLOOM_INDEX_OPEN_MAX 8192
#define BLOOM_INDEX_GROUP_FIRST 256
#define BLOOM_INDEX_GROUP_MIN 64
#define BLOOM_INDEX_SLICE_PAGES_MAX 2000
#define BLOOM_INDEX_SLICED_M_MAX ((uint64) 1 << 19)
#define BLOOM_INDEX_FLUSH_ROWS 256

/* Whether filters of m bits go into groups (index.h's head); else they stay pending. */
static inline bool
bloom_index_sliced(uint64 m)
{
	return m > 0 && m <= BLOOM_INDEX_SLICED_M_MAX;
}

typedef struct BloomGroupHeader
{
	BloomIndexShape shape;		/* pending unused */
	uint32		rows_max;		/* G */
	uint32		rows;			/* rows written, <= G */
	uint32		slice_bytes;	/* G / 8 */
	uint32		slices_per_page;
	uint32		tid_pages;
	uint32		slice_pages;
	BlockNumber slice_first;	/* slice pages: slice_first + i */
	BlockNumber tid_first;		/* TID pages: tid_first + t */
	uint32		tids_per_page;	/* rows a TID page holds */
	uint8		tid_block_bits; /* 0: ItemPointerData; B of a packed page */
	uint8		tid_offset_bits;	/* O of a packed page */
	uint16		reserved;
} BloomGroupHeader;

/*
 * A packed TID page (index.h's head): its first block, then the entries;
 * 8 bytes stay free at the end, so that an entry is read with one 8-byte
 * load wherever it starts.
 */
#define BLOOM_TIDS_PACKED_HEADER sizeof(uint32)
#define BLOOM_TIDS_PACKED_BITS(width) \
	((uint32) ((BLOOM_INDEX_PAGE_BYTES - BLOOM_TIDS_PACKED_HEADER - 8) * 8 / (width)))

/* The TID of row i of a group's TID page (contents: the page's); invalid if removed. */
static inline void
bloom_index_page_tid(const BloomGroupHeader *group, const char *contents, uint32 i,
					 ItemPointer tid)
{
	uint32		width = group->tid_block_bits + group->tid_offset_bits;
	uint64		bit = (uint64) i * width;
	uint64		entry;
	uint64		block;
	uint32		first;
	OffsetNumber offset;

	if (group->tid_block_bits == 0)
	{
		memcpy(tid, contents + (size_t) i * sizeof(ItemPointerData), sizeof(ItemPointerData));
		return;
	}
	memcpy(&first, contents, sizeof(first));
	entry = bf_load_le64((const uint8 *) contents + BLOOM_TIDS_PACKED_HEADER + bit / 8) >> (bit % 8);
	entry &= (UINT64CONST(1) << width) - 1;
	offset = (OffsetNumber) (entry & ((1u << group->tid_offset_bits) - 1));
	block = (uint64) first + (entry >> group->tid_offset_bits);
	if (offset == InvalidOffsetNumber)
		ItemPointerSetInvalid(tid);
	else
		ItemPointerSet(tid, block <= MaxBlockNumber ? (BlockNumber) block : InvalidBlockNumber, offset);
}

#define BloomIndexPageGroup(page) ((BloomGroupHeader *) PageGetContents(page))

/*
 * A pending tuple: one row's filter, or one chunk of it.  A row's chunks
 * are consecutive in the chain, chunk 0 first.
 */
typedef struct BloomPendingTuple
{
	ItemPointerData tid;
	uint16		chunk;
	uint64		m;
	uint32		offset;			/* of this chunk's first byte in the bit array */
	uint32		length;			/* bytes of bits in this chunk */
	uint8		hash_scheme;
	uint8		k;
	uint8		read_utf8;
	uint8		last;			/* 1 in the row's last chunk */
	uint8		bits[FLEXIBLE_ARRAY_MEMBER];
} BloomPendingTuple;

#define BLOOM_PENDING_HEADER MAXALIGN(offsetof(BloomPendingTuple, bits))
#define BLOOM_PENDING_CHUNK 8000

/* pages.c */
extern void bloom_index_page_init(Page page, uint16 type);
extern Buffer bloom_index_read(Relation index, BlockNumber block, int lockmode, uint16 type);
extern Buffer bloom_index_new_buffer(Relation index, bool extension_locked);
extern BloomIndexMeta *bloom_index_meta_checked(Relation index, Page page);
extern void bloom_index_check_group(Relation index, BlockNumber block,
									const BloomGroupHeader *group);
extern BloomGroupHeader *bloom_index_read_group(Relation index, BlockNumber block,
												BlockNumber *next);
extern BlockNumber bloom_index_table_blocks(Relation index);
extern void bloom_index_check_tid_slow(Relation index, BlockNumber block, ItemPointer tid,
									   BlockNumber *heap_blocks);
extern void bloom_index_tid_form(BloomGroupHeader *group, const ItemPointerData *tids);
extern void bloom_index_fill_tid_page(const BloomGroupHeader *group, char *contents,
									  const ItemPointerData *tids, uint32 count);
extern void bloom_index_remove_page_tid(const BloomGroupHeader *group, char *contents, uint32 i);
extern const char *bloom_index_pending_problem(ItemId item, const BloomPendingTuple *tuple);
extern void bloom_index_pending_corrupted(Relation index, BlockNumber block, OffsetNumber offset,
										  const char *problem);
extern void *bloom_index_chunked_row(struct HTAB **rows, Size entry_size, ItemPointer tid,
									 bool *seen);
extern uint32 bloom_index_filling_rows(uint32 rows);
extern uint32 bloom_index_group_rows(uint64 m);
extern uint32 bloom_index_build_group_rows(uint64 m, Size budget);
extern uint32 bloom_index_new_group_rows(uint64 m, uint32 grouped);
extern uint32 bloom_index_slices_per_page(uint32 rows_max);
extern uint32 bloom_index_slice_pages(uint64 m, uint32 rows_max);
extern void bloom_index_shape_of(const BloomHeader *header, BloomIndexShape *shape);
extern bool bloom_index_shapes_equal(const BloomIndexShape *a, const BloomIndexShape *b);

/*
 * Refuse a heap TID read at block of the index that no heap page can hold,
 * or that is past the end of the table (a damaged page), before it is kept:
 * the index holds no TID of a block the table does not have, since VACUUM
 * truncates the table only after removing the TIDs of its last pages.
 * *heap_blocks is the table's size when the caller last measured it (0:
 * not yet); the table may have grown since (a concurrent insert), so a TID
 * past it has the table measured again, and *heap_blocks updated, before
 * it is refused (bloom_index_check_tid_slow, pages.c).  Inline: a lookup
 * checks every TID it reads.  The caller's page lock is held through the
 * ERROR.
 */
static inline void
bloom_index_check_tid(Relation index, BlockNumber block, ItemPointer tid,
					  BlockNumber *heap_blocks)
{
	OffsetNumber offset = ItemPointerGetOffsetNumberNoCheck(tid);

	if (unlikely(offset < FirstOffsetNumber || offset > MaxHeapTuplesPerPage ||
				 ItemPointerGetBlockNumberNoCheck(tid) >= *heap_blocks))
		bloom_index_check_tid_slow(index, block, tid, heap_blocks);
}

/* store.c */
extern void bloom_index_init_meta(Page page);
extern BloomIndexShape *bloom_index_meta_shape(BloomIndexMeta *meta, const BloomIndexShape *shape,
											   bool add);
extern void bloom_index_add_pending(Relation index, Buffer meta_buffer, ItemPointer tid,
									const BloomIndexShape *shape, const uint8 *bits, size_t nbytes);
extern void bloom_index_flush(Relation index, Buffer meta_buffer);
extern BlockNumber bloom_index_write_group(Relation index, Buffer meta_buffer,
											const BloomIndexShape *shape, uint32 rows_max,
											uint32 rows, ItemPointerData *tids, uint8 **row_bits);

/* build.c */
extern IndexBuildResult *bloom_index_build(Relation heap, Relation index, IndexInfo *index_info);
extern void bloom_index_build_empty(Relation index);
extern bool bloom_index_insert(Relation index, Datum *values, bool *isnull, ItemPointer heap_tid,
							   Relation heap, IndexUniqueCheck check_unique,
							   bool index_unchanged, IndexInfo *index_info);

/* scan.c */
extern IndexScanDesc bloom_index_begin_scan(Relation index, int nkeys, int norderbys);
extern void bloom_index_rescan(IndexScanDesc scan, ScanKey keys, int nkeys,
							   ScanKey orderbys, int norderbys);
extern int64 bloom_index_get_bitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern bool bloom_index_get_tuple(IndexScanDesc scan, ScanDirection direction);
extern void bloom_index_end_scan(IndexScanDesc scan);

/* rows.c: the rows a lookup finds, as the scan takes them */
typedef struct BloomFoundRows BloomFoundRows;
extern BloomFoundRows *bloom_found_rows_create(MemoryContext context, TIDBitmap *bitmap);
extern void bloom_found_rows_add(BloomFoundRows *rows, ItemPointer tid, bool recheck);
extern void bloom_found_rows_start(BloomFoundRows *rows, Relation heap);
extern bool bloom_found_rows_next(BloomFoundRows *rows, ItemPointer tid, bool *recheck);
extern void bloom_found_rows_free(BloomFoundRows *rows);

/* condition.c: for bloom_contains_support (planner/support.c) */
struct SupportRequestIndexCondition;
extern List *bloom_index_condition(struct SupportRequestIndexCondition *request);

/* vacuum.c */
extern IndexBulkDeleteResult *bloom_index_bulk_delete(IndexVacuumInfo *info,
													  IndexBulkDeleteResult *stats,
													  IndexBulkDeleteCallback callback,
													  void *callback_state);
extern IndexBulkDeleteResult *bloom_index_vacuum_cleanup(IndexVacuumInfo *info,
														 IndexBulkDeleteResult *stats);

#endif							/* BLOOM_INDEX_H */
