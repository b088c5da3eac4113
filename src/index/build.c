/*
 * index/build.c: CREATE INDEX and INSERT into a bloom_slices index.  The
 * build gathers each shape's rows until they make a group and writes it
 * whole; the rest, and every insert, goes to the pending chain
 * (index/store.c).
 */
#include "postgres.h"

#include "compat.h"
#include "index/index.h"
#include "types/types.h"

#include "access/tableam.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

static Buffer
bloom_index_lock_meta(Relation index)
{
	return bloom_index_read(index, BLOOM_INDEX_METAPAGE, BUFFER_LOCK_EXCLUSIVE, BLOOM_PAGE_META);
}

/* One row: pending, and a flush if its shape has G rows pending now. */
static void
bloom_index_add_row(Relation index, ItemPointer tid, const BloomView *view)
{
	Buffer		meta_buffer = bloom_index_lock_meta(index);
	BloomIndexMeta *meta = bloom_index_meta_checked(index, BufferGetPage(meta_buffer));
	BloomIndexShape shape;
	BloomIndexShape *entry;

	bloom_index_shape_of(&view->header, &shape);
	bloom_index_add_pending(index, meta_buffer, tid, &shape, view->bits, view->nbytes);
	meta = BloomIndexPageMeta(BufferGetPage(meta_buffer));
	entry = bloom_index_meta_shape(meta, &shape, false);
	if (bloom_index_sliced(view->header.m) && entry != NULL &&
		entry->pending >= BLOOM_INDEX_FLUSH_ROWS)
		bloom_index_flush(index, meta_buffer);
	UnlockReleaseBuffer(meta_buffer);
}

bool
bloom_index_insert(Relation index, Datum *values, bool *isnull, ItemPointer heap_tid,
				   Relation heap, IndexUniqueCheck check_unique,
				   bool index_unchanged, IndexInfo *index_info)
{
	MemoryContext context;
	MemoryContext old_context;
	BloomView	view;

	/* a NULL filter contains nothing: no scan can want its row */
	if (isnull[0])
		return false;
	context = AllocSetContextCreate(CurrentMemoryContext, "bloom_slices insert",
									ALLOCSET_DEFAULT_SIZES);
	old_context = MemoryContextSwitchTo(context);
	bloom_view_datum(values[0], &view);
	bloom_index_add_row(index, heap_tid, &view);
	MemoryContextSwitchTo(old_context);
	MemoryContextDelete(context);
	return false;
}

/* The build's rows of one shape, until they make a group. */
typedef struct BloomBuildShape
{
	BloomIndexShape shape;
	uint32		rows_max;
	uint32		rows;
	uint32		grouped;		/* rows written into groups */
	ItemPointerData *tids;
	uint8	  **row_bits;
	MemoryContext bits_context; /* the rows' bits, without power-of-two rounding */
} BloomBuildShape;

typedef struct BloomBuildState
{
	Relation	index;
	MemoryContext row_context;
	MemoryContext shapes_context;
	BloomBuildShape shape[BLOOM_INDEX_SHAPES];
	uint32		shapes;
	Size		held;			/* bytes of bits held in shape[] */
	Size		held_max;		/* maintenance_work_mem */
	double		rows;
} BloomBuildState;

static void
bloom_index_build_group(BloomBuildState *build, BloomBuildShape *shape)
{
	Buffer		meta_buffer = bloom_index_lock_meta(build->index);

	bloom_index_write_group(build->index, meta_buffer, &shape->shape, shape->rows_max,
							shape->rows, shape->tids, shape->row_bits);
	UnlockReleaseBuffer(meta_buffer);
	MemoryContextReset(shape->bits_context);
	build->held -= (Size) shape->rows * bloom_payload_bytes(shape->shape.m);
	shape->grouped += shape->rows;
	shape->rows = 0;
}

static void
bloom_index_build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
						   bool alive, void *arg)
{
	BloomBuildState *build = (BloomBuildState *) arg;
	MemoryContext old_context;
	BloomView	view;
	BloomIndexShape shape;
	BloomBuildShape *held = NULL;
	uint32		rows_max;

	if (isnull[0])
		return;
	old_context = MemoryContextSwitchTo(build->row_context);
	bloom_view_datum(values[0], &view);
	bloom_index_shape_of(&view.header, &shape);
	build->rows += 1;

	if (bloom_index_sliced(shape.m))
	{
		for (uint32 i = 0; i < build->shapes && held == NULL; i++)
			if (bloom_index_shapes_equal(&build->shape[i].shape, &shape))
				held = &build->shape[i];
		if (held == NULL && build->shapes < BLOOM_INDEX_SHAPES)
		{
			held = &build->shape[build->shapes++];
			held->shape = shape;
			held->rows_max = rows_max = bloom_index_build_group_rows(shape.m, build->held_max);
			held->rows = 0;
			held->grouped = 0;
			held->tids = MemoryContextAlloc(build->shapes_context,
											rows_max * sizeof(ItemPointerData));
			held->row_bits = MemoryContextAlloc(build->shapes_context,
												rows_max * sizeof(uint8 *));
			held->bits_context = GenerationContextCreate(build->shapes_context,
														 "bloom_slices build rows",
														 ALLOCSET_DEFAULT_SIZES);
		}
		if (held != NULL && held->rows == 0 && build->held + view.nbytes > build->held_max)
			held = NULL;
	}
	if (held != NULL)
	{
		held->tids[held->rows] = *tid;
		held->row_bits[held->rows] = MemoryContextAlloc(held->bits_context, view.nbytes);
		memcpy(held->row_bits[held->rows], view.bits, view.nbytes);
		held->rows++;
		build->held += view.nbytes;
		if (held->rows == held->rows_max)
			bloom_index_build_group(build, held);
	}
	else
		bloom_index_add_row(index, tid, &view);
	MemoryContextSwitchTo(old_context);
	MemoryContextReset(build->row_context);
}

/* An empty index: the metapage and the first pending page. */
static void
bloom_index_write_empty(Relation index, ForkNumber fork)
{
	Buffer		meta_buffer = ReadBufferExtended(index, fork, P_NEW, RBM_NORMAL, NULL);
	Buffer		pending_buffer;

	LockBuffer(meta_buffer, BUFFER_LOCK_EXCLUSIVE);
	pending_buffer = ReadBufferExtended(index, fork, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(pending_buffer, BUFFER_LOCK_EXCLUSIVE);
	Assert(BufferGetBlockNumber(meta_buffer) == BLOOM_INDEX_METAPAGE);
	Assert(BufferGetBlockNumber(pending_buffer) == 1);
	if (fork == INIT_FORKNUM)
	{
		START_CRIT_SECTION();
		bloom_index_init_meta(BufferGetPage(meta_buffer));
		bloom_index_page_init(BufferGetPage(pending_buffer), BLOOM_PAGE_PENDING);
		MarkBufferDirty(meta_buffer);
		MarkBufferDirty(pending_buffer);
		log_newpage_buffer(meta_buffer, true);
		log_newpage_buffer(pending_buffer, true);
		END_CRIT_SECTION();
	}
	else
	{
		GenericXLogState *state = GenericXLogStart(index);

		bloom_index_init_meta(GenericXLogRegisterBuffer(state, meta_buffer,
														GENERIC_XLOG_FULL_IMAGE));
		bloom_index_page_init(GenericXLogRegisterBuffer(state, pending_buffer,
														GENERIC_XLOG_FULL_IMAGE),
							  BLOOM_PAGE_PENDING);
		GenericXLogFinish(state);
	}
	UnlockReleaseBuffer(pending_buffer);
	UnlockReleaseBuffer(meta_buffer);
}

IndexBuildResult *
bloom_index_build(Relation heap, Relation index, IndexInfo *index_info)
{
	IndexBuildResult *result;
	BloomBuildState build;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));
	bloom_index_write_empty(index, MAIN_FORKNUM);

	memset(&build, 0, sizeof(build));
	build.index = index;
	build.row_context = AllocSetContextCreate(CurrentMemoryContext, "bloom_slices build row",
											  ALLOCSET_DEFAULT_SIZES);
	build.shapes_context = AllocSetContextCreate(CurrentMemoryContext, "bloom_slices build",
												 ALLOCSET_DEFAULT_SIZES);
	build.held_max = (Size) maintenance_work_mem * 1024;

	table_index_build_scan(heap, index, index_info, true, true,
						   bloom_index_build_callback, &build, NULL);

	/*
	 * Each shape's remainder: full groups, each the largest G that it fills,
	 * and the last rows, too few for one, pending.
	 */
	for (uint32 i = 0; i < build.shapes; i++)
	{
		BloomBuildShape *held = &build.shape[i];
		uint32		done = 0;

		while (done < held->rows)
		{
			Buffer		meta_buffer = bloom_index_lock_meta(index);
			uint32		rows_max = Max(bloom_index_filling_rows(Min(held->rows_max, held->rows - done)),
									   BLOOM_INDEX_GROUP_MIN);
			uint32		rows;

			rows = Min(rows_max, held->rows - done);

			if (rows >= Min(BLOOM_INDEX_FLUSH_ROWS, held->rows_max))
			{
				bloom_index_write_group(index, meta_buffer, &held->shape, rows_max, rows,
										held->tids + done, held->row_bits + done);
				held->grouped += rows;
				done += rows;
			}
			else
				for (; done < held->rows; done++)
					bloom_index_add_pending(index, meta_buffer, &held->tids[done], &held->shape,
											held->row_bits[done],
											bloom_payload_bytes(held->shape.m));
			UnlockReleaseBuffer(meta_buffer);
		}
	}
	MemoryContextDelete(build.row_context);
	MemoryContextDelete(build.shapes_context);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = build.rows;
	result->index_tuples = build.rows;
	return result;
}

void
bloom_index_build_empty(Relation index)
{
	bloom_index_write_empty(index, INIT_FORKNUM);
}
