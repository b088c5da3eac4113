--
-- Security of the installed objects (whatever version chain installed them).
-- t/014_security.pl installs the extension under a hostile
-- search_path and as a non-superuser; this checks the catalog of the
-- database the suite runs in.
--

-- The extension's members: every object with an 'e' dependency on it.
CREATE TEMP VIEW bloom_members AS
SELECT d.classid, d.objid
FROM pg_catalog.pg_depend d
JOIN pg_catalog.pg_extension e
	ON d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass
	AND d.refobjid = e.oid
WHERE e.extname = 'bloomfilter' AND d.deptype = 'e';

SELECT pg_catalog.count(*) > 40 AS has_members FROM bloom_members;

-- Every function is C (or an aggregate, whose support functions are C):
-- no SQL or PL body that would run under the caller's search_path.
SELECT p.oid::pg_catalog.regprocedure AS function, l.lanname
FROM bloom_members m
JOIN pg_catalog.pg_proc p ON m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND m.objid = p.oid
JOIN pg_catalog.pg_language l ON l.oid = p.prolang
WHERE NOT (l.lanname = 'c' OR (p.prokind = 'a' AND l.lanname = 'internal'))
ORDER BY 1;

-- No SECURITY DEFINER function, and no function that sets a GUC.
SELECT p.oid::pg_catalog.regprocedure AS function
FROM bloom_members m
JOIN pg_catalog.pg_proc p ON m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND m.objid = p.oid
WHERE p.prosecdef OR p.proconfig IS NOT NULL
ORDER BY 1;

-- Every C function of the extension is in its own module.
SELECT p.oid::pg_catalog.regprocedure AS function, p.probin
FROM bloom_members m
JOIN pg_catalog.pg_proc p ON m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND m.objid = p.oid
JOIN pg_catalog.pg_language l ON l.oid = p.prolang
WHERE l.lanname = 'c' AND p.probin <> '$libdir/bloomfilter'
ORDER BY 1;

-- The members refer to nothing but each other (and the array types of
-- their types), their schema and PostgreSQL's own objects (pinned, so
-- without pg_depend rows, or in pg_catalog): a look-alike type, function or
-- operator elsewhere on the search_path at install time would show up here.
WITH ours AS (
	SELECT classid, objid FROM bloom_members
	UNION ALL
	SELECT 'pg_catalog.pg_type'::pg_catalog.regclass, t.typarray
	FROM bloom_members m
	JOIN pg_catalog.pg_type t ON m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND m.objid = t.oid
)
SELECT pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid) AS member,
	pg_catalog.pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid) AS refers_to
FROM pg_catalog.pg_depend d
JOIN bloom_members m ON d.classid = m.classid AND d.objid = m.objid
WHERE d.deptype IN ('n', 'a')
	AND d.refclassid <> 'pg_catalog.pg_namespace'::pg_catalog.regclass
	AND NOT EXISTS (SELECT 1 FROM ours r
					WHERE r.classid = d.refclassid AND r.objid = d.refobjid)
	AND (pg_catalog.pg_identify_object(d.refclassid, d.refobjid, 0)).schema
		IS DISTINCT FROM 'pg_catalog'
ORDER BY 1, 2;

DROP VIEW bloom_members;
