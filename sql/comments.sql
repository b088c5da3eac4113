--
-- Every object of the extension explains itself in \df+, \do+, \dT+ and
-- \dx+: each member of the extension (types, functions, aggregates,
-- operators, operator classes and families) has a COMMENT.
--

CREATE VIEW comments_members AS
SELECT d.classid, d.objid,
	pg_describe_object(d.classid, d.objid, 0) AS object,
	obj_description(d.objid, d.classid::regclass::name) AS description
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
	AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
	AND d.deptype = 'e';

-- the check sees objects of every kind (expected: all true)
SELECT kind, count(*) > 0 AS present
FROM (SELECT CASE
		WHEN classid = 'pg_type'::regclass THEN 'type'
		WHEN classid = 'pg_proc'::regclass AND EXISTS
			(SELECT 1 FROM pg_aggregate WHERE aggfnoid = objid) THEN 'aggregate'
		WHEN classid = 'pg_proc'::regclass THEN 'function'
		WHEN classid = 'pg_operator'::regclass THEN 'operator'
		WHEN classid = 'pg_opclass'::regclass THEN 'operator class'
		WHEN classid = 'pg_opfamily'::regclass THEN 'operator family'
		ELSE classid::regclass::text
	END AS kind
	FROM comments_members) AS members
GROUP BY kind
ORDER BY kind;

-- members without a comment (expected: none)
SELECT object FROM comments_members
WHERE description IS NULL OR description = ''
ORDER BY object;

DROP VIEW comments_members;
