-- bench/case_table.sql: the table of cases bench/measure.sql times and
-- bench/report.sql reports (bench/cases.sql says what each column means);
-- cases.sql and sets.sql fill it.
CREATE TABLE bench_case (
	id          text PRIMARY KEY,  -- short name; sorts the report
	what        text NOT NULL,     -- one line for the report
	numerator   text,              -- SQL, the thing measured (ratio cases)
	denominator text,              -- SQL, what it is measured against (ratio cases)
	target_max  float8,
	requires    text,
	unit        text NOT NULL DEFAULT 'ratio' CHECK (unit IN ('ratio', 'ms', 'MB/s')),
	target_min  float8,
	megabytes   float8,            -- MB/s cases: megabytes per run (absolute.sql fills it in)
	numerator_settings text        -- 'name=value ...' for the numerator only (ratio cases)
);
