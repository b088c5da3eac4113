/*
 * module.c: the module's set-up.  _PG_init registers the settings and the
 * planner hooks; their order makes the hooks run as
 *
 *     prefilter (adds semi-join prefilters, prefilter/prefilter.c)
 *       -> split (lets Citus split the aggregates, distributed/split.c)
 *         -> the hook that was there before (Citus's), or standard_planner
 *
 * so that a prefilter's own aggregate is rewritten for Citus too.
 */
#include "postgres.h"

#include "core/core.h"
#include "distributed/distributed.h"
#include "prefilter/prefilter.h"

#include "fmgr.h"
#include "miscadmin.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

static void
bloom_check_for_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

void
_PG_init(void)
{
	bf_interrupt_hook = bloom_check_for_interrupts;
	bloom_split_init();
	bloom_auto_prefilter_init();
}
