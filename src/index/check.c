/*
 * index/check.c: bloom_index_check(index, heapallindexed), amcheck's
 * bt_index_check for bloom_slices: every page of the chains is one of ours
 * of the right type, every pending tuple and group header holds together,
 * and with heapallindexed every
 * filter the heap holds (in the transaction's snapshot) is in the index
 * under its TID with exactly its bits.  Anything else is ERROR XX002.
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"
#include "types/types.h"

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

typedef struct BloomCheckEntry
{
	ItemPointerData tid;		/* key */
	uint64		hash;			/* of the row's shape and bits */
	bool		seen;			/* found in the heap */
} BloomCheckEntry;

/* A pending row being put together from its chunks. */
typedef struct BloomCheckRow
{
	ItemPointerData tid;		/* key */
	BloomIndexShape shape;
	uint8	   *bits;
	uint64		bytes;
	uint64		bytes_seen;
} BloomCheckRow;

typedef struct BloomCheckState
{
	Relation	index;
	Relation	heap;
	HTAB	   *rows;			/* NULL without heapallindexed */
	BlockNumber nblocks;
	BlockNumber heap_blocks;
	BlockNumber steps;
	int64		heap_rows;
} BloomCheckState;

pg_noreturn static void
bloom_check_fail(Relation index, BlockNumber block, const char *detail)
{
	ereport(ERROR,
			errcode(ERRCODE_INDEX_CORRUPTED),
			errmsg("index \"%s\" is corrupted at block %u", RelationGetRelationName(index), block),
			errdetail_internal("%s", detail));
}

static uint64
bloom_check_row_hash(const BloomIndexShape *shape, const uint8 *bits, size_t nbytes)
{
	uint64		seed = shape->m * 31 + shape->k * 7 + shape->hash_scheme * 3 + shape->read_utf8;

	return DatumGetUInt64(hash_any_extended(bits, (int) nbytes, seed));
}

static void
bloom_check_remember(BloomCheckState *state, BlockNumber block, ItemPointer tid, uint64 hash)
{
	BloomCheckEntry *entry;
	bool		found;

	if (state->rows == NULL)
		return;
	entry = hash_search(state->rows, tid, HASH_ENTER, &found);
	/* a row twice (a flush cut short by a crash) must be the same row */
	if (found && entry->hash != hash)
		bloom_check_fail(state->index, block, "A heap TID is in the index twice with different bits.");
	entry->hash = hash;
	entry->seen = false;
}

static void
bloom_check_step(BloomCheckState *state, BlockNumber block)
{
	CHECK_FOR_INTERRUPTS();
	if (++state->steps > state->nblocks)
		bloom_check_fail(state->index, block, "The page chains are longer than the index: a loop.");
}

static void
bloom_check_pending(BloomCheckState *state, BlockNumber block)
{
	Relation	index = state->index;
	HTAB	   *chunked = NULL;

	while (block != InvalidBlockNumber)
	{
		Buffer		buffer;
		Page		page;
		OffsetNumber max;

		bloom_check_step(state, block);
		buffer = bloom_index_read(index, block, BUFFER_LOCK_SHARE, BLOOM_PAGE_PENDING);
		page = BufferGetPage(buffer);
		max = PageGetMaxOffsetNumber(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= max; off++)
		{
			ItemId		item = PageGetItemId(page, off);
			BloomPendingTuple *tuple;
			BloomIndexShape shape = {0};
			BloomCheckRow *row;
			BloomCheckRow single;
			const char *problem;
			bool		seen;

			if (!ItemIdIsNormal(item))
				continue;
			tuple = (BloomPendingTuple *) PageGetItem(page, item);
			problem = bloom_index_pending_problem(item, tuple);
			if (problem != NULL)
				bloom_check_fail(index, block, problem);
			bloom_index_check_tid(index, block, &tuple->tid, &state->heap_blocks);
			shape.m = tuple->m;
			shape.hash_scheme = tuple->hash_scheme;
			shape.k = tuple->k;
			shape.read_utf8 = tuple->read_utf8;

			/*
			 * A row's chunks may be anywhere in the chain; a row never seen
			 * whole was cut short by a crash, and no snapshot sees it.
			 */
			if (tuple->chunk == 0 && tuple->last)
			{
				row = &single;
				seen = false;
			}
			else
			{
				row = bloom_index_chunked_row(&chunked, sizeof(BloomCheckRow), &tuple->tid, &seen);
			}
			if (!seen)
			{
				row->shape = shape;
				row->bytes = bloom_payload_bytes(tuple->m);
				row->bits = palloc0(row->bytes);
				row->bytes_seen = 0;
			}
			else if (!bloom_index_shapes_equal(&row->shape, &shape))
				bloom_check_fail(index, block, "The chunks of a pending row disagree on its shape.");
			memcpy(row->bits + tuple->offset, tuple->bits, tuple->length);
			row->bytes_seen += tuple->length;
			if (row->bytes_seen == row->bytes)
			{
				BloomHeader header = {BLOOM_FORMAT_VERSION, shape.hash_scheme, shape.k, 0, shape.m};

				/* the filter's own rules: its header, and no bit past m */
				if (bf_check_header(&header) != BF_OK ||
					bf_check_bits(&header, row->bits, row->bytes) != BF_OK)
					bloom_check_fail(index, block, "A pending row is not a valid filter.");
				bloom_check_remember(state, block, &tuple->tid,
									 bloom_check_row_hash(&shape, row->bits, row->bytes));
			}
		}
		block = BloomIndexPageOpaque(page)->next;
		UnlockReleaseBuffer(buffer);
	}
	if (chunked != NULL)
		hash_destroy(chunked);
}

static void
bloom_check_group(BloomCheckState *state, BlockNumber block, const BloomGroupHeader *group)
{
	Relation	index = state->index;
	size_t		payload = bloom_payload_bytes(group->shape.m);
	uint8	   *rows = state->rows ? palloc0((size_t) group->rows_max * payload) : NULL;
	uint32		last_bits = group->rows % 8;

	for (uint32 i = 0; i < group->slice_pages; i++)
	{
		Buffer		buffer;
		const uint8 *slices;
		uint64		first = (uint64) i * group->slices_per_page;
		uint64		end = Min(group->shape.m, first + group->slices_per_page);

		CHECK_FOR_INTERRUPTS();
		buffer = bloom_index_read(index, group->slice_first + i, BUFFER_LOCK_SHARE, BLOOM_PAGE_SLICES);
		slices = (const uint8 *) PageGetContents(BufferGetPage(buffer));
		for (uint64 p = first; p < end; p++)
		{
			const uint8 *slice = slices + (p - first) * group->slice_bytes;

			for (uint32 b = 0; b < group->slice_bytes; b++)
			{
				uint32		v = slice[b];

				/*
				 * Bits past the group's rows are left by a flush a crash cut
				 * short; no scan reads them and the next flush clears them.
				 */
				if (b * 8 >= group->rows)
					break;
				if (b == group->rows / 8 && last_bits != 0)
					v &= (1u << last_bits) - 1;
				while (rows && v != 0)
				{
					uint32		r = b * 8 + pg_rightmost_one_pos32(v);

					v &= v - 1;
					rows[(size_t) r * payload + p / 8] |= (uint8) (1 << (p % 8));
				}
			}
		}
		UnlockReleaseBuffer(buffer);
	}
	for (uint32 t = 0; t < group->tid_pages; t++)
	{
		Buffer		buffer = bloom_index_read(index, group->tid_first + t, BUFFER_LOCK_SHARE,
											  BLOOM_PAGE_TIDS);
		const char *contents = PageGetContents(BufferGetPage(buffer));

		for (uint32 i = 0; i < group->tids_per_page; i++)
		{
			uint32		r = t * group->tids_per_page + i;
			ItemPointerData tid;

			bloom_index_page_tid(group, contents, i, &tid);

			/* past the rows: what a flush cut short left, as above */
			if (!ItemPointerIsValid(&tid) || r >= group->rows)
				continue;
			bloom_index_check_tid(index, group->tid_first + t, &tid, &state->heap_blocks);
			if (rows)
				bloom_check_remember(state, block, &tid,
									 bloom_check_row_hash(&group->shape, rows + (size_t) r * payload,
														  payload));
		}
		UnlockReleaseBuffer(buffer);
	}
	if (rows)
		pfree(rows);
}

static void
bloom_check_heap_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
						  bool alive, void *arg)
{
	BloomCheckState *state = (BloomCheckState *) arg;
	BloomCheckEntry *entry;
	BloomView	view;
	BloomIndexShape shape;

	if (isnull[0])
		return;
	bloom_view_datum(values[0], &view);
	bloom_index_shape_of(&view.header, &shape);
	entry = hash_search(state->rows, tid, HASH_FIND, NULL);
	if (entry == NULL)
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("heap tuple (%u,%u) of \"%s\" is not in index \"%s\"",
					   ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
					   RelationGetRelationName(state->heap),
					   RelationGetRelationName(index)));
	if (entry->hash != bloom_check_row_hash(&shape, view.bits, view.nbytes))
		ereport(ERROR,
				errcode(ERRCODE_INDEX_CORRUPTED),
				errmsg("index \"%s\" holds other bits than heap tuple (%u,%u)",
					   RelationGetRelationName(index),
					   ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid)));
	entry->seen = true;
	state->heap_rows++;
}

PG_FUNCTION_INFO_V1(bloom_index_check);
Datum
bloom_index_check(PG_FUNCTION_ARGS)
{
	Oid			index_oid = PG_GETARG_OID(0);
	bool		heapallindexed = PG_GETARG_BOOL(1);
	Oid			heap_oid = IndexGetRelation(index_oid, true);
	Relation	heap;
	Relation	index;
	BloomCheckState state = {0};
	Snapshot	snapshot = InvalidSnapshot;
	Buffer		buffer;
	BlockNumber pending_head;
	BlockNumber block;

	if (!OidIsValid(heap_oid))
		ereport(ERROR,
				errcode(ERRCODE_WRONG_OBJECT_TYPE),
				errmsg("\"%s\" is not an index", get_rel_name(index_oid) ? get_rel_name(index_oid) : "?"));
	heap = table_open(heap_oid, AccessShareLock);
	index = index_open(index_oid, AccessShareLock);
	if (index->rd_indam->ambuild != bloom_index_build)
		ereport(ERROR,
				errcode(ERRCODE_WRONG_OBJECT_TYPE),
				errmsg("index \"%s\" is not a bloom_slices index", RelationGetRelationName(index)));
	if (!bloom_relation_owned(heap_oid, GetUserId()))
		ereport(ERROR,
				errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				errmsg("must be owner of table %s to check its index", RelationGetRelationName(heap)));

	state.index = index;
	state.heap = heap;
	state.nblocks = RelationGetNumberOfBlocks(index);
	state.heap_blocks = bloom_index_table_blocks(index);
	if (heapallindexed)
	{
		HASHCTL		control = {0};

		control.keysize = sizeof(ItemPointerData);
		control.entrysize = sizeof(BloomCheckEntry);
		control.hcxt = CurrentMemoryContext;
		state.rows = hash_create("bloom_index_check rows", 1024, &control,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		/* before the index is read: what it shows, the index holds */
		snapshot = RegisterSnapshot(GetTransactionSnapshot());
	}

	buffer = bloom_index_read(index, BLOOM_INDEX_METAPAGE, BUFFER_LOCK_SHARE, BLOOM_PAGE_META);
	pending_head = bloom_index_meta_checked(index, BufferGetPage(buffer))->pending_head;
	UnlockReleaseBuffer(buffer);
	bloom_check_pending(&state, pending_head);

	buffer = bloom_index_read(index, BLOOM_INDEX_METAPAGE, BUFFER_LOCK_SHARE, BLOOM_PAGE_META);
	block = BloomIndexPageMeta(BufferGetPage(buffer))->group_head;
	UnlockReleaseBuffer(buffer);
	while (block != InvalidBlockNumber)
	{
		BloomGroupHeader *group;
		BlockNumber next;

		bloom_check_step(&state, block);
		group = bloom_index_read_group(index, block, &next);
		bloom_check_group(&state, block, group);
		block = next;
		pfree(group);
	}

	if (heapallindexed)
	{
		IndexInfo  *index_info = BuildIndexInfo(index);
		TableScanDesc scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, true);

		/* a scan of the rows the snapshot sees, as CREATE INDEX CONCURRENTLY's */
		index_info->ii_Concurrent = true;
		table_index_build_scan(heap, index, index_info, true, false,
							   bloom_check_heap_callback, &state, scan);
		UnregisterSnapshot(snapshot);
		hash_destroy(state.rows);
	}
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
	PG_RETURN_VOID();
}
