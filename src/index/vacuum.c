/*
 * index/vacuum.c: VACUUM of a bloom_slices index.  The rows of dead heap
 * tuples leave the pending pages and lose their TID in their group (the
 * slot's bits stay until REINDEX: a group is written whole); then the
 * shapes with G rows pending are flushed into groups.
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"

#include "commands/vacuum.h"
#include "miscadmin.h"
#include "utils/rel.h"

/* Remove the dead rows of the pending chain; the metapage is locked. */
static void
bloom_vacuum_pending(Relation index, Buffer meta_buffer, IndexBulkDeleteResult *stats,
					 IndexBulkDeleteCallback callback, void *callback_state, double *live)
{
	BloomIndexMeta *meta = BloomIndexPageMeta(BufferGetPage(meta_buffer));
	BlockNumber block = meta->pending_head;
	uint32	   *removed_per_shape = palloc0(sizeof(uint32) * BLOOM_INDEX_SHAPES);
	uint64		removed_rows = 0;
	GenericXLogState *state;

	while (block != InvalidBlockNumber)
	{
		Buffer		buffer;
		Page		page;
		OffsetNumber max;
		OffsetNumber *dead;
		int			ndead = 0;

		vacuum_delay_point_vacuum();
		buffer = bloom_index_read(index, block, BUFFER_LOCK_EXCLUSIVE, BLOOM_PAGE_PENDING);
		page = BufferGetPage(buffer);
		max = PageGetMaxOffsetNumber(page);
		dead = palloc(sizeof(OffsetNumber) * (max + 1));
		for (OffsetNumber off = FirstOffsetNumber; off <= max; off++)
		{
			ItemId		item = PageGetItemId(page, off);
			BloomPendingTuple *tuple;

			if (!ItemIdIsNormal(item))
				continue;
			tuple = (BloomPendingTuple *) PageGetItem(page, item);
			if (callback(&tuple->tid, callback_state))
			{
				dead[ndead++] = off;
				if (tuple->last)
				{
					BloomIndexShape shape = {tuple->m, tuple->hash_scheme, tuple->k,
					tuple->read_utf8, 0, 0};

					for (uint32 i = 0; i < meta->shapes; i++)
						if (bloom_index_shapes_equal(&meta->shape[i], &shape))
							removed_per_shape[i]++;
					removed_rows++;
					stats->tuples_removed += 1;
				}
			}
			else if (tuple->last)
				*live += 1;
		}
		if (ndead > 0)
		{
			state = GenericXLogStart(index);
			PageIndexMultiDelete(GenericXLogRegisterBuffer(state, buffer, 0), dead, ndead);
			GenericXLogFinish(state);
		}
		pfree(dead);
		block = BloomIndexPageOpaque(page)->next;
		UnlockReleaseBuffer(buffer);
	}

	if (removed_rows == 0)
	{
		pfree(removed_per_shape);
		return;
	}
	state = GenericXLogStart(index);
	meta = BloomIndexPageMeta(GenericXLogRegisterBuffer(state, meta_buffer, 0));
	for (uint32 i = 0; i < meta->shapes; i++)
		meta->shape[i].pending -= Min(meta->shape[i].pending, removed_per_shape[i]);
	meta->pending_rows -= Min(meta->pending_rows, removed_rows);
	meta->pending_insert = meta->pending_head;
	GenericXLogFinish(state);
	pfree(removed_per_shape);
}

/* Clear the TIDs of dead rows in every group. */
static void
bloom_vacuum_groups(Relation index, BlockNumber block, IndexBulkDeleteResult *stats,
					IndexBulkDeleteCallback callback, void *callback_state, double *live)
{
	while (block != InvalidBlockNumber)
	{
		BloomGroupHeader *group = bloom_index_read_group(index, block, &block);
		BloomGroupHeader header = *group;
		Buffer		buffer;

		pfree(group);
		for (uint32 t = 0; t < header.tid_pages; t++)
		{
			char	   *contents;
			uint32		first = t * header.tids_per_page;
			uint32		count = header.rows > first ?
				Min(header.rows - first, header.tids_per_page) : 0;
			GenericXLogState *state = NULL;

			vacuum_delay_point_vacuum();
			buffer = bloom_index_read(index, header.tid_first + t, BUFFER_LOCK_EXCLUSIVE,
									  BLOOM_PAGE_TIDS);
			contents = PageGetContents(BufferGetPage(buffer));
			for (uint32 i = 0; i < count; i++)
			{
				ItemPointerData tid;

				bloom_index_page_tid(&header, contents, i, &tid);
				if (!ItemPointerIsValid(&tid))
					continue;
				if (!callback(&tid, callback_state))
				{
					*live += 1;
					continue;
				}
				if (state == NULL)
				{
					state = GenericXLogStart(index);
					contents = PageGetContents(GenericXLogRegisterBuffer(state, buffer, 0));
				}
				bloom_index_remove_page_tid(&header, contents, i);
				stats->tuples_removed += 1;
			}
			if (state != NULL)
				GenericXLogFinish(state);
			UnlockReleaseBuffer(buffer);
		}
	}
}

IndexBulkDeleteResult *
bloom_index_bulk_delete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
						IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	Buffer		meta_buffer;
	BlockNumber group_head;
	double		live = 0;

	if (stats == NULL)
		stats = (IndexBulkDeleteResult *) palloc0(sizeof(IndexBulkDeleteResult));

	meta_buffer = bloom_index_read(index, BLOOM_INDEX_METAPAGE, BUFFER_LOCK_EXCLUSIVE,
								   BLOOM_PAGE_META);
	bloom_index_meta_checked(index, BufferGetPage(meta_buffer));
	bloom_vacuum_pending(index, meta_buffer, stats, callback, callback_state, &live);
	group_head = BloomIndexPageMeta(BufferGetPage(meta_buffer))->group_head;
	UnlockReleaseBuffer(meta_buffer);

	/* a group linked after this point holds only rows that were pending and alive */
	bloom_vacuum_groups(index, group_head, stats, callback, callback_state, &live);
	stats->num_index_tuples = live;
	return stats;
}

static bool
bloom_vacuum_count_callback(ItemPointer tid, void *state)
{
	return false;
}

IndexBulkDeleteResult *
bloom_index_vacuum_cleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	Relation	index = info->index;
	Buffer		meta_buffer;

	if (info->analyze_only)
		return stats;

	/* the pending rows of shapes with G of them move into groups */
	meta_buffer = bloom_index_read(index, BLOOM_INDEX_METAPAGE, BUFFER_LOCK_EXCLUSIVE,
								   BLOOM_PAGE_META);
	bloom_index_meta_checked(index, BufferGetPage(meta_buffer));
	bloom_index_flush(index, meta_buffer);
	UnlockReleaseBuffer(meta_buffer);

	/* without a bulk delete (nothing died), count the rows with one that keeps all */
	if (stats == NULL)
		stats = bloom_index_bulk_delete(info, NULL, bloom_vacuum_count_callback, NULL);
	stats->num_pages = RelationGetNumberOfBlocks(index);
	stats->estimated_count = false;
	return stats;
}
