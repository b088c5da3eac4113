/*
 * distributed/setup.c: bloom_setup_check(), what the set-up of a database
 * that uses Citus lacks.
 *
 * Citus splits the polymorphic aggregates only when this library's planner
 * hook runs before Citus's (distributed/split.c), for every query of every
 * session: the library must be loaded at server start, after citus
 * (shared_preload_libraries = 'citus,bloomfilter').  So the set-up is
 * complete when Citus is not in this database, or when the library was
 * loaded at start (seen in _PG_init) and the setting lists it after citus.
 * The install and update scripts raise a WARNING with the answer, at the
 * moment the mistake is made.
 */
#include "postgres.h"

#include "distributed/distributed.h"

#include "catalog/pg_authid.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "port.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/varlena.h"

static bool loaded_at_start = false;

void
bloom_setup_init(void)
{
	loaded_at_start = process_shared_preload_libraries_in_progress;
}

/* Whether an entry of shared_preload_libraries (a name or a path, with or without DLSUFFIX) names library. */
static bool
setup_entry_names(const char *entry, const char *library)
{
	const char *name = last_dir_separator(entry);
	size_t		length;

	name = name != NULL ? name + 1 : entry;
	length = strlen(name);
	if (length > strlen(DLSUFFIX) && strcmp(name + length - strlen(DLSUFFIX), DLSUFFIX) == 0)
		length -= strlen(DLSUFFIX);
	return length == strlen(library) && strncmp(name, library, length) == 0;
}

/* Appends an entry to a list setting's value, quoted as SplitDirectoriesString reads it. */
static void
setup_append_entry(StringInfo value, const char *entry)
{
	if (value->len > 0)
		appendStringInfoChar(value, ',');
	if (strpbrk(entry, ", \t\n\r\"'") == NULL)
	{
		appendStringInfoString(value, entry);
		return;
	}
	appendStringInfoChar(value, '"');
	for (const char *c = entry; *c != '\0'; c++)
	{
		if (*c == '"')
			appendStringInfoChar(value, '"');
		appendStringInfoChar(value, *c);
	}
	appendStringInfoChar(value, '"');
}

/*
 * The value of shared_preload_libraries that loads citus and, after it,
 * this library: the current one with citus first if it is missing and this
 * library moved to the end (by the path it was named with, if any).
 */
static char *
setup_fixed_libraries(List *entries)
{
	StringInfoData value;
	const char *ours = "bloomfilter";
	bool		has_citus = false;
	ListCell   *lc;

	initStringInfo(&value);
	foreach(lc, entries)
		has_citus |= setup_entry_names(lfirst(lc), "citus");
	if (!has_citus)
		setup_append_entry(&value, "citus");
	foreach(lc, entries)
	{
		if (setup_entry_names(lfirst(lc), "bloomfilter"))
			ours = lfirst(lc);
		else
			setup_append_entry(&value, lfirst(lc));
	}
	setup_append_entry(&value, ours);
	return value.data;
}

/*
 * bloom_setup_check(): NULL when nothing is missing, else what to change,
 * as a hint.  The new value is built from the current one only for a role
 * that may read it (it is a superuser-only setting, as SHOW has it).
 */
PG_FUNCTION_INFO_V1(bloom_setup_check);
Datum
bloom_setup_check(PG_FUNCTION_ARGS)
{
	const char *setting;
	char	   *raw;
	List	   *entries = NIL;
	int			citus_at = -1;
	int			ours_at = -1;
	int			i = 0;
	ListCell   *lc;
	StringInfoData line;

	if (!OidIsValid(get_extension_oid("citus", true)))
		PG_RETURN_NULL();
	setting = GetConfigOption("shared_preload_libraries", true, false);
	raw = pstrdup(setting != NULL ? setting : "");
	/* the server parsed it at start, so it parses; if not, nothing is listed */
	if (!SplitDirectoriesString(raw, ',', &entries))
		entries = NIL;
	foreach(lc, entries)
	{
		if (citus_at < 0 && setup_entry_names(lfirst(lc), "citus"))
			citus_at = i;
		if (setup_entry_names(lfirst(lc), "bloomfilter"))
			ours_at = i;
		i++;
	}
	if (loaded_at_start && citus_at >= 0 && ours_at > citus_at)
		PG_RETURN_NULL();

	initStringInfo(&line);
	if (has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_SETTINGS))
	{
		char	   *value = setup_fixed_libraries(entries);

		appendStringInfoString(&line, "Set shared_preload_libraries = '");
		for (const char *c = value; *c != '\0'; c++)
		{
			if (*c == '\'')
				appendStringInfoChar(&line, '\'');
			appendStringInfoChar(&line, *c);
		}
		appendStringInfoString(&line, "' in postgresql.conf and restart the server.");
	}
	else
		appendStringInfoString(&line, "Add bloomfilter after citus to shared_preload_libraries "
							   "in postgresql.conf and restart the server.");
	PG_RETURN_TEXT_P(cstring_to_text(line.data));
}
