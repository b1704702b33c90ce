-- The bloomfilter type: input and output as bytea hex, casts, validation.
CREATE EXTENSION bloomkit;
SET client_min_messages = warning;

CREATE TABLE filters (id int PRIMARY KEY, f bloomfilter);
INSERT INTO filters SELECT 1, bloom_agg(g, 1000) FROM generate_series(1, 100) g;

-- Output is bytea's hex form; input reads it back to the same bytes.
SELECT substr(f::text, 1, 18) AS magic FROM filters;
SELECT (f::text)::bloomfilter::bytea = f::bytea AS round_trip FROM filters;
SELECT length(f::bytea) AS bytes FROM filters;

-- bloomfilter -> bytea is the same bytes; bytea -> bloomfilter checks them.
SELECT bloomfilter(f::bytea)::bytea = f::bytea AS same FROM filters;
CREATE TABLE raw (b bytea);
INSERT INTO raw SELECT f FROM filters;           -- assignment cast
INSERT INTO filters SELECT 2, b FROM raw;       -- assignment cast, checked
SELECT count(*) FROM filters;

-- Binary I/O (COPY BINARY) goes through recv/send with the same checks.
COPY filters TO '/dev/null' WITH (FORMAT binary);

-- Bytes that are not a bloomkit file are refused on every way in.
SELECT '\x00'::bloomfilter;
SELECT ''::bloomfilter;
SELECT '\x0102030405'::bytea::bloomfilter;
SELECT 'not hex'::bloomfilter;
