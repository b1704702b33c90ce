-- Probes, inserts, merges and facts for every SQL type bloomkit hashes.
SET client_min_messages = warning;
SET extra_float_digits = 0;

-- Integers of every width are one key type (int64): a filter built from
-- bigint answers for smallint and integer values of the same number.
CREATE TEMP TABLE ints AS SELECT bloom_agg(g::bigint, 1000) AS f FROM generate_series(1, 500) g;
SELECT bloom_contains(f, 42::bigint), bloom_contains(f, 42::integer), bloom_contains(f, 42::smallint),
       bloom_contains(f, 42) FROM ints;
SELECT count(*) FILTER (WHERE bloom_contains(f, g)) AS present_found FROM ints, generate_series(1, 500) g;
SELECT count(*) FILTER (WHERE bloom_contains(f, g)) < 50 AS few_false_positives
  FROM ints, generate_series(1001, 6000) g;

-- Floats: float4 values widen exactly to float64 keys.
CREATE TEMP TABLE floats AS SELECT bloom_agg(g / 4.0::float8, 1000) AS f FROM generate_series(1, 100) g;
SELECT bloom_contains(f, 2.5::float8), bloom_contains(f, 2.5::real), bloom_contains(f, 0.1::float8) FROM floats;

-- Text (its UTF-8 bytes), varchar through text, bytea, uuid.
CREATE TEMP TABLE texts AS SELECT bloom_agg('key-' || g, 1000) AS f FROM generate_series(1, 100) g;
SELECT bloom_contains(f, 'key-7'), bloom_contains(f, 'key-7'::varchar), bloom_contains(f, 'key-7000') FROM texts;
SELECT bloom_contains(f, convert_to('key-7', 'UTF8')) AS bytea_of_same_bytes FROM texts;
CREATE TEMP TABLE uuids AS
  SELECT bloom_agg(('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid, 100) AS f FROM generate_series(1, 10) g;
SELECT bloom_contains(f, '00000000-0000-0000-0000-000000000003'::uuid),
       bloom_contains(f, '00000000-0000-0000-0000-000000000099'::uuid) FROM uuids;

-- Dates and timestamps (days and microseconds since 1970 in the key).
CREATE TEMP TABLE days AS SELECT bloom_agg(d::date, 100) AS f
  FROM generate_series('2024-01-01'::date, '2024-01-31'::date, '1 day') d;
SELECT bloom_contains(f, '2024-01-15'::date), bloom_contains(f, '2025-01-15'::date) FROM days;
CREATE TEMP TABLE stamps AS SELECT bloom_agg(t, 100) AS f
  FROM generate_series('2024-01-01 00:00'::timestamp, '2024-01-01 10:00', '1 hour') t;
SELECT bloom_contains(f, '2024-01-01 05:00'::timestamp), bloom_contains(f, '2024-01-01 05:30'::timestamp) FROM stamps;
SET timezone = 'UTC';
CREATE TEMP TABLE stampstz AS SELECT bloom_agg(t, 100) AS f
  FROM generate_series('2024-01-01 00:00+00'::timestamptz, '2024-01-01 10:00+00', '1 hour') t;
SELECT bloom_contains(f, '2024-01-01 07:00+02'::timestamptz) AS same_instant FROM stampstz;
SELECT bloom_contains(f, 'infinity'::date) FROM days;

-- NULL in, NULL out (strict).
SELECT bloom_contains(f, NULL::bigint) IS NULL AS null_key, bloom_contains(NULL, 1) IS NULL AS null_filter FROM ints;

-- bloom_add returns a new filter with the key; the argument is unchanged.
SELECT bloom_contains(bloom_add(f, 9999::bigint), 9999::bigint) AS added, bloom_contains(f, 9999::bigint) AS before
  FROM ints;
SELECT (bloom_info(bloom_add(f, 9999::bigint)) ->> 'inserted')::int AS inserted FROM ints;

-- bloom_merge is the union of two filters of one shape.
CREATE TEMP TABLE halves AS
  SELECT bloom_agg(g, 1000) FILTER (WHERE g <= 250) AS a, bloom_agg(g, 1000) FILTER (WHERE g > 250) AS b
  FROM generate_series(1, 500) g;
SELECT bloom_merge(a, b)::bytea = (SELECT f::bytea FROM ints) AS merge_equals_whole FROM halves;
SELECT bloom_merge(a, (SELECT f FROM texts)) FROM halves;

-- Facts: bloom_info has the fields of `bloomkit info --json`.
SELECT jsonb_object_keys(bloom_info(f)) AS field FROM ints ORDER BY 1;
SELECT bloom_info(f) -> 'kind' AS kind, bloom_info(f) -> 'capacity' AS capacity, bloom_info(f) -> 'inserted' AS inserted,
       bloom_info(f) -> 'hash' AS hash, bloom_info(f) -> 'checksum_ok' AS ok FROM ints;
SELECT round(bloom_cardinality(f)) AS about_500, bloom_fpr(f) < 0.01 AS fpr_below_target FROM ints;

-- Every filter records its key type (format version 5); a value converts into
-- it when the conversion is exact (docs/KEYS.md), else the library refuses it.
SELECT bloom_info(i.f) ->> 'key_type' AS ints, bloom_info(fl.f) ->> 'key_type' AS floats,
       bloom_info(t.f) ->> 'key_type' AS texts, bloom_info(u.f) ->> 'key_type' AS uuids,
       bloom_info(d.f) ->> 'key_type' AS days, bloom_info(s.f) ->> 'key_type' AS stamps,
       bloom_info(i.f) ->> 'format_version' AS version
  FROM ints i, floats fl, texts t, uuids u, days d, stamps s;
SELECT bloom_contains(f, 42.0::float8) AS integral_float, bloom_contains(f, 42::real) AS real_42 FROM ints;
SELECT bloom_contains(f, 5) AS int_in_float_filter FROM floats;
SELECT bloom_contains(f, 42.5::float8) FROM ints;
SELECT bloom_contains(f, 'key-7') FROM ints;
SELECT bloom_contains(f, 7) FROM texts;
SELECT bloom_contains(f, '2024-01-15 00:00'::timestamp) FROM days;
SELECT bloom_add(f, 'x') FROM ints;
