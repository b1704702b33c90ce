/* postgres/src/bloomkit_pg.c - the PostgreSQL side of the bloomkit extension:
 * the bloomfilter type's I/O, the functions and the aggregates' support
 * functions (docs/POSTGRES.md describes them for users).
 *
 * All filter work happens in bloomkit_core.cpp behind a C interface that
 * never throws; this file only moves values in and out, turns a failed
 * bk_status into ereport(ERROR) once the C++ call has returned, and ties the
 * C++ objects' lifetime to memory contexts (a reset callback frees them, so a
 * cancelled or failed query leaks nothing). Nothing here is SECURITY DEFINER
 * and nothing reads beyond the values it is given. */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "bloomkit_core.h"

PG_MODULE_MAGIC;

/* Days and microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01. */
#define BK_UNIX_TO_PG_DAYS INT64CONST(10957)
#define BK_UNIX_TO_PG_USECS (INT64CONST(10957) * USECS_PER_DAY)

/* Keys inserted between two checks for cancellation when a filter is filled
 * at the end of bloom_agg without a capacity. */
#define BK_FINISH_CHUNK ((size_t) 1 << 20)

static void
bk_raise(const bk_status *status)
{
	int			sqlstate;

	switch (status->code)
	{
		case BK_E_INVALID:
			sqlstate = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		case BK_E_MISMATCH:
			sqlstate = ERRCODE_DATATYPE_MISMATCH;
			break;
		case BK_E_CORRUPT:
			sqlstate = ERRCODE_DATA_CORRUPTED;
			break;
		case BK_E_LIMIT:
			sqlstate = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		case BK_E_MEMORY:
			sqlstate = ERRCODE_OUT_OF_MEMORY;
			break;
		default:
			sqlstate = ERRCODE_INTERNAL_ERROR;
			break;
	}
	ereport(ERROR, (errcode(sqlstate), errmsg("%s", status->message)));
}

/* ---- values --------------------------------------------------------------- */

/* The key of SQL value `datum` of type `type`; text is converted to UTF-8
 * when the database encoding is another (SQL_ASCII: its bytes as they are).
 * Memory for converted text is palloc'd in the current context. */
static bk_value
bk_value_of(Datum datum, Oid type)
{
	bk_value	v;

	memset(&v, 0, sizeof v);
	switch (type)
	{
		case INT2OID:
			v.tag = BK_VALUE_INT;
			v.i = DatumGetInt16(datum);
			break;
		case INT4OID:
			v.tag = BK_VALUE_INT;
			v.i = DatumGetInt32(datum);
			break;
		case INT8OID:
			v.tag = BK_VALUE_INT;
			v.i = DatumGetInt64(datum);
			break;
		case FLOAT4OID:
			v.tag = BK_VALUE_FLOAT;
			v.f = (double) DatumGetFloat4(datum);
			break;
		case FLOAT8OID:
			v.tag = BK_VALUE_FLOAT;
			v.f = DatumGetFloat8(datum);
			break;
		case TEXTOID:
		case VARCHAROID:
			{
				text	   *t = DatumGetTextPP(datum);
				const char *s = VARDATA_ANY(t);
				int			len = VARSIZE_ANY_EXHDR(t);
				int			encoding = GetDatabaseEncoding();

				v.tag = BK_VALUE_BYTES;
				if (encoding != PG_UTF8 && encoding != PG_SQL_ASCII)
				{
					char	   *utf8 = (char *) pg_do_encoding_conversion((unsigned char *) s, len, encoding, PG_UTF8);

					if (utf8 != s)
						len = strlen(utf8);
					s = utf8;
				}
				v.data = s;
				v.size = (size_t) len;
				break;
			}
		case BYTEAOID:
			{
				bytea	   *b = DatumGetByteaPP(datum);

				v.tag = BK_VALUE_BYTES;
				v.data = VARDATA_ANY(b);
				v.size = VARSIZE_ANY_EXHDR(b);
				break;
			}
		case UUIDOID:
			v.tag = BK_VALUE_BYTES;
			v.data = DatumGetUUIDP(datum)->data;
			v.size = UUID_LEN;
			break;
		case DATEOID:
			{
				DateADT		d = DatumGetDateADT(datum);

				if (DATE_NOT_FINITE(d))
					ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
									errmsg("bloomkit: an infinite date has no date32 key")));
				v.tag = BK_VALUE_DATE;
				v.i = (int64) d + BK_UNIX_TO_PG_DAYS;
				break;
			}
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			{
				int64		t = DatumGetInt64(datum);

				if (TIMESTAMP_NOT_FINITE(t) || pg_add_s64_overflow(t, BK_UNIX_TO_PG_USECS, &v.i))
					ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
									errmsg("bloomkit: an infinite or out-of-range timestamp has no timestamp_us key")));
				v.tag = BK_VALUE_TIMESTAMP;
				break;
			}
		default:
			ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
							errmsg("bloomkit: values of type %s have no bloomkit key type", format_type_be(type))));
	}
	return v;
}

static Oid
bk_arg_type(FunctionCallInfo fcinfo, int arg)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, arg);

	if (!OidIsValid(type))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("bloomkit: could not determine the type of argument %d", arg + 1)));
	return type;
}

/* A varlena of `size` data bytes, allocated in the current context. */
static bytea *
bk_new_varlena(size_t size)
{
	bytea	   *out;

	if (size > BK_MAX_FILE_BYTES)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						errmsg("bloomkit: a value of %zu bytes is past PostgreSQL's 1 GB limit", size)));
	out = (bytea *) palloc(size + VARHDRSZ);
	SET_VARSIZE(out, size + VARHDRSZ);
	return out;
}

/* ---- the type ------------------------------------------------------------- */

static void
bk_check_file(const bytea *value)
{
	bk_status	status;

	if (bk_validate(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &status) != 0)
		bk_raise(&status);
}

PG_FUNCTION_INFO_V1(bloomfilter_in);
Datum
bloomfilter_in(PG_FUNCTION_ARGS)
{
	Datum		value = DirectFunctionCall1(byteain, PG_GETARG_DATUM(0));

	bk_check_file(DatumGetByteaPP(value));
	PG_RETURN_DATUM(value);
}

PG_FUNCTION_INFO_V1(bloomfilter_out);
Datum
bloomfilter_out(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall1(byteaout, PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(bloomfilter_recv);
Datum
bloomfilter_recv(PG_FUNCTION_ARGS)
{
	Datum		value = DirectFunctionCall1(bytearecv, PG_GETARG_DATUM(0));

	bk_check_file(DatumGetByteaPP(value));
	PG_RETURN_DATUM(value);
}

PG_FUNCTION_INFO_V1(bloomfilter_send);
Datum
bloomfilter_send(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall1(byteasend, PG_GETARG_DATUM(0));
}

/* bytea -> bloomfilter: the same bytes, once they are a valid file. */
PG_FUNCTION_INFO_V1(bloomfilter_from_bytea);
Datum
bloomfilter_from_bytea(PG_FUNCTION_ARGS)
{
	bk_check_file(PG_GETARG_BYTEA_PP(0));
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* ---- probing: a reader cached per call site ------------------------------- */

/* The reader of the last filter value a call site saw. A value is the same
 * one when its stored form (before detoasting: a TOAST pointer names the
 * stored value) has the same length and the same first bk_cache_prefix bytes;
 * for a value stored in line those bytes hold the file's fixed header, which
 * carries the payload's checksum. The reader owns a verified copy, so a value
 * that matches the prefix but lies about its payload is answered from the
 * verified filter, never read out of bounds. */
#define BK_CACHE_PREFIX 256

typedef struct BkContainsCache
{
	bk_reader  *reader;
	Size		raw_size;
	Size		prefix_size;
	char		prefix[BK_CACHE_PREFIX];
	MemoryContextCallback callback;
} BkContainsCache;

static void
bk_cache_free(void *arg)
{
	BkContainsCache *cache = (BkContainsCache *) arg;

	if (cache->reader != NULL)
		bk_reader_free(cache->reader);
	cache->reader = NULL;
}

static const bk_reader *
bk_cached_reader(FunctionCallInfo fcinfo, Datum filter)
{
	BkContainsCache *cache = (BkContainsCache *) fcinfo->flinfo->fn_extra;
	struct varlena *raw = (struct varlena *) DatumGetPointer(filter);
	Size		raw_size = VARSIZE_ANY(raw);
	Size		prefix_size = Min(raw_size, BK_CACHE_PREFIX);
	bytea	   *value;
	bk_status	status;
	bk_reader  *reader;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BkContainsCache));
		cache->callback.func = bk_cache_free;
		cache->callback.arg = cache;
		MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, &cache->callback);
		fcinfo->flinfo->fn_extra = cache;
	}
	if (cache->reader != NULL && cache->raw_size == raw_size && cache->prefix_size == prefix_size &&
		memcmp(cache->prefix, raw, prefix_size) == 0)
		return cache->reader;

	value = DatumGetByteaPP(filter);
	reader = bk_reader_open(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &status);
	if (reader == NULL)
		bk_raise(&status);
	if (cache->reader != NULL)
		bk_reader_free(cache->reader);
	cache->reader = reader;
	cache->raw_size = raw_size;
	cache->prefix_size = prefix_size;
	memcpy(cache->prefix, raw, prefix_size);
	return reader;
}

PG_FUNCTION_INFO_V1(bloom_contains);
Datum
bloom_contains(PG_FUNCTION_ARGS)
{
	const bk_reader *reader = bk_cached_reader(fcinfo, PG_GETARG_DATUM(0));
	bk_value	key = bk_value_of(PG_GETARG_DATUM(1), bk_arg_type(fcinfo, 1));
	bk_status	status;
	int			answer = bk_reader_contains(reader, &key, &status);

	if (answer < 0)
		bk_raise(&status);
	PG_RETURN_BOOL(answer == 1);
}

/* ---- facts ---------------------------------------------------------------- */

PG_FUNCTION_INFO_V1(bloom_info);
Datum
bloom_info(PG_FUNCTION_ARGS)
{
	bytea	   *value = PG_GETARG_BYTEA_PP(0);
	size_t		capacity = 2048;
	bk_status	status;

	for (;;)
	{
		char	   *text = palloc(capacity);
		long		length = bk_info_json(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), text, capacity, &status);

		if (length < 0)
			bk_raise(&status);
		if ((size_t) length < capacity)
			return DirectFunctionCall1(jsonb_in, CStringGetDatum(text));
		pfree(text);
		capacity = (size_t) length + 1;
	}
}

static void
bk_estimates_of(FunctionCallInfo fcinfo, double *cardinality, double *fpr)
{
	bytea	   *value = PG_GETARG_BYTEA_PP(0);
	bk_status	status;

	if (bk_estimates(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), cardinality, fpr, &status) != 0)
		bk_raise(&status);
}

PG_FUNCTION_INFO_V1(bloom_cardinality);
Datum
bloom_cardinality(PG_FUNCTION_ARGS)
{
	double		cardinality,
				fpr;

	bk_estimates_of(fcinfo, &cardinality, &fpr);
	PG_RETURN_FLOAT8(cardinality);
}

PG_FUNCTION_INFO_V1(bloom_fpr);
Datum
bloom_fpr(PG_FUNCTION_ARGS)
{
	double		cardinality,
				fpr;

	bk_estimates_of(fcinfo, &cardinality, &fpr);
	PG_RETURN_FLOAT8(fpr);
}

/* ---- builders: the C++ object tied to a memory context --------------------- */

/* A bk_builder owned by the memory context this handle is allocated in: the
 * context's reset or deletion frees it (also when a query fails or is
 * cancelled). */
typedef struct BkHandle
{
	bk_builder *builder;
	MemoryContextCallback callback;
} BkHandle;

static void
bk_handle_free(void *arg)
{
	BkHandle   *handle = (BkHandle *) arg;

	if (handle->builder != NULL)
		bk_builder_free(handle->builder);
	handle->builder = NULL;
}

/* A handle in `context` whose builder is set by the caller right after
 * (allocated before the builder, so that a failed palloc leaks nothing). */
static BkHandle *
bk_handle_alloc(MemoryContext context)
{
	BkHandle   *handle = MemoryContextAllocZero(context, sizeof(BkHandle));

	handle->callback.func = bk_handle_free;
	handle->callback.arg = handle;
	MemoryContextRegisterResetCallback(context, &handle->callback);
	return handle;
}

/* Stores `builder` in `handle`, or raises `status` when it is NULL. */
static BkHandle *
bk_handle_set(BkHandle *handle, bk_builder *builder, const bk_status *status)
{
	if (builder == NULL)
		bk_raise(status);
	handle->builder = builder;
	return handle;
}

/* The finished filter of `handle` as a bloomfilter value (palloc'd in the
 * current context). Fills a builder without a capacity in chunks, checking
 * for cancellation between them. */
static Datum
bk_handle_result(BkHandle *handle)
{
	bk_status	status;
	long		left;
	size_t		size;
	bytea	   *out;

	while ((left = bk_builder_finish_step(handle->builder, BK_FINISH_CHUNK, &status)) != 0)
	{
		if (left < 0)
			bk_raise(&status);
		CHECK_FOR_INTERRUPTS();
	}
	size = bk_builder_file_bytes(handle->builder, &status);
	if (size == 0)
		bk_raise(&status);
	out = bk_new_varlena(size);
	if (bk_builder_write_file(handle->builder, VARDATA(out), size, &status) != 0)
		bk_raise(&status);
	PG_RETURN_BYTEA_P(out);
}

static BkHandle *
bk_handle_from_value(MemoryContext context, bytea *value)
{
	BkHandle   *handle = bk_handle_alloc(context);
	bk_status	status;

	return bk_handle_set(handle, bk_builder_from_file(VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &status), &status);
}

PG_FUNCTION_INFO_V1(bloom_add);
Datum
bloom_add(PG_FUNCTION_ARGS)
{
	BkHandle   *handle = bk_handle_from_value(CurrentMemoryContext, PG_GETARG_BYTEA_PP(0));
	bk_value	key = bk_value_of(PG_GETARG_DATUM(1), bk_arg_type(fcinfo, 1));
	bk_status	status;

	if (bk_builder_add(handle->builder, &key, &status) != 0)
		bk_raise(&status);
	return bk_handle_result(handle);
}

PG_FUNCTION_INFO_V1(bloom_merge);
Datum
bloom_merge(PG_FUNCTION_ARGS)
{
	BkHandle   *handle = bk_handle_from_value(CurrentMemoryContext, PG_GETARG_BYTEA_PP(0));
	bytea	   *other = PG_GETARG_BYTEA_PP(1);
	bk_status	status;

	if (bk_builder_combine_file(handle->builder, VARDATA_ANY(other), VARSIZE_ANY_EXHDR(other), 0, &status) != 0)
		bk_raise(&status);
	return bk_handle_result(handle);
}

/* ---- aggregates ------------------------------------------------------------ */

static MemoryContext
bk_agg_context(FunctionCallInfo fcinfo, const char *name)
{
	MemoryContext context;

	if (!AggCheckCallContext(fcinfo, &context))
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg("bloomkit: %s called outside an aggregate", name)));
	return context;
}

/* bloom_agg(value [, capacity [, fpr [, kind]]]): the state is created at the
 * first non-NULL value from that row's capacity, fpr and kind; NULL values
 * are skipped. */
PG_FUNCTION_INFO_V1(bloom_agg_transfn);
Datum
bloom_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext context = bk_agg_context(fcinfo, "bloom_agg_transfn");
	BkHandle   *handle = PG_ARGISNULL(0) ? NULL : (BkHandle *) PG_GETARG_POINTER(0);
	Oid			type = bk_arg_type(fcinfo, 1);
	bk_value	key;
	bk_status	status;

	if (PG_ARGISNULL(1))
	{
		if (handle == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(handle);
	}
	key = bk_value_of(PG_GETARG_DATUM(1), type);
	if (handle == NULL)
	{
		int64		capacity = -1;
		double		fpr = -1;
		char	   *kind = NULL;

		if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
		{
			capacity = PG_GETARG_INT64(2);
			if (capacity < 0)
				ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								errmsg("bloomkit: capacity must be at least 0, got " INT64_FORMAT, capacity)));
		}
		if (PG_NARGS() > 3 && !PG_ARGISNULL(3))
		{
			fpr = PG_GETARG_FLOAT8(3);
			if (!(fpr > 0 && fpr < 1))
				ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								errmsg("bloomkit: fpr must be in (0, 1), got %g", fpr)));
		}
		if (PG_NARGS() > 4 && !PG_ARGISNULL(4))
			kind = text_to_cstring(PG_GETARG_TEXT_PP(4));
		handle = bk_handle_alloc(context);
		bk_handle_set(handle, bk_builder_new(kind, capacity, fpr, bk_natural_key_type(key.tag), &status), &status);
	}
	if (bk_builder_add(handle->builder, &key, &status) != 0)
		bk_raise(&status);
	PG_RETURN_POINTER(handle);
}

/* Combines state 2 into state 1 (union: op 0, intersection: op 1); a NULL
 * side (a worker that saw no rows) is the other side. */
static Datum
bk_combine(FunctionCallInfo fcinfo, int op)
{
	MemoryContext context = bk_agg_context(fcinfo, "bloomkit combine function");
	BkHandle   *a = PG_ARGISNULL(0) ? NULL : (BkHandle *) PG_GETARG_POINTER(0);
	BkHandle   *b = PG_ARGISNULL(1) ? NULL : (BkHandle *) PG_GETARG_POINTER(1);
	bk_status	status;

	if (b == NULL || b->builder == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL || a->builder == NULL)
	{
		/* Take over b's builder in a handle of the aggregate's own context. */
		BkHandle   *taken = bk_handle_alloc(context);

		taken->builder = b->builder;
		b->builder = NULL;
		PG_RETURN_POINTER(taken);
	}
	if (bk_builder_combine(a->builder, b->builder, op, &status) != 0)
		bk_raise(&status);
	PG_RETURN_POINTER(a);
}

PG_FUNCTION_INFO_V1(bloom_union_combinefn);
Datum
bloom_union_combinefn(PG_FUNCTION_ARGS)
{
	return bk_combine(fcinfo, 0);
}

PG_FUNCTION_INFO_V1(bloom_intersect_combinefn);
Datum
bloom_intersect_combinefn(PG_FUNCTION_ARGS)
{
	return bk_combine(fcinfo, 1);
}

PG_FUNCTION_INFO_V1(bloom_state_serialfn);
Datum
bloom_state_serialfn(PG_FUNCTION_ARGS)
{
	BkHandle   *handle = (BkHandle *) PG_GETARG_POINTER(0);
	bk_status	status;
	size_t		size;
	bytea	   *out;

	(void) bk_agg_context(fcinfo, "bloom_state_serialfn");
	size = bk_builder_state_bytes(handle->builder, &status);
	if (size == 0)
		bk_raise(&status);
	out = bk_new_varlena(size);
	if (bk_builder_serialize(handle->builder, VARDATA(out), size, &status) != 0)
		bk_raise(&status);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(bloom_state_deserialfn);
Datum
bloom_state_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext context = bk_agg_context(fcinfo, "bloom_state_deserialfn");
	bytea	   *state = PG_GETARG_BYTEA_PP(0);
	BkHandle   *handle = bk_handle_alloc(context);
	bk_status	status;

	PG_RETURN_POINTER(bk_handle_set(handle, bk_builder_deserialize(VARDATA_ANY(state), VARSIZE_ANY_EXHDR(state), &status),
									&status));
}

PG_FUNCTION_INFO_V1(bloom_state_finalfn);
Datum
bloom_state_finalfn(PG_FUNCTION_ARGS)
{
	(void) bk_agg_context(fcinfo, "bloom_state_finalfn");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	return bk_handle_result((BkHandle *) PG_GETARG_POINTER(0));
}

/* bloom_union_agg / bloom_intersect_agg: the state starts as a copy of the
 * first non-NULL filter; each later one is combined into it. */
static Datum
bk_set_transfn(FunctionCallInfo fcinfo, int op)
{
	MemoryContext context = bk_agg_context(fcinfo, op == 0 ? "bloom_union_agg" : "bloom_intersect_agg");
	BkHandle   *handle = PG_ARGISNULL(0) ? NULL : (BkHandle *) PG_GETARG_POINTER(0);
	bytea	   *value;
	bk_status	status;

	if (PG_ARGISNULL(1))
	{
		if (handle == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(handle);
	}
	value = PG_GETARG_BYTEA_PP(1);
	if (handle == NULL)
		PG_RETURN_POINTER(bk_handle_from_value(context, value));
	if (bk_builder_combine_file(handle->builder, VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), op, &status) != 0)
		bk_raise(&status);
	PG_RETURN_POINTER(handle);
}

PG_FUNCTION_INFO_V1(bloom_union_transfn);
Datum
bloom_union_transfn(PG_FUNCTION_ARGS)
{
	return bk_set_transfn(fcinfo, 0);
}

PG_FUNCTION_INFO_V1(bloom_intersect_transfn);
Datum
bloom_intersect_transfn(PG_FUNCTION_ARGS)
{
	return bk_set_transfn(fcinfo, 1);
}
