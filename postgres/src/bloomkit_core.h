/* postgres/src/bloomkit_core.h - the C interface between PostgreSQL's C world
 * and the bloomkit library (C++).
 *
 * Every function here is implemented in bloomkit_core.cpp, catches every C++
 * exception itself and reports it through a bk_status: no exception ever
 * crosses into PostgreSQL, whose errors unwind by longjmp and would skip C++
 * destructors. In return, nothing here calls PostgreSQL: the caller turns a
 * failed status into ereport(ERROR), after the C++ call has returned.
 *
 * Memory: the objects (bk_reader, bk_builder) live on the C++ heap; the caller
 * owns them and frees them with their _free function (the extension does so
 * from a memory-context reset callback, so an aborted query frees them too).
 * Bytes returned to PostgreSQL are written into buffers the caller allocated
 * (palloc) after asking for their size.
 *
 * This header is compiled without PostgreSQL too: fuzz/postgres_input_fuzz.cpp
 * drives the same input path. */
#ifndef BLOOMKIT_PG_CORE_H
#define BLOOMKIT_PG_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Outcome of a call: code 0 on success; otherwise one of BK_E_* and the
 * library's message (truncated to fit). */
typedef struct bk_status {
  int code;
  char message[1024];
} bk_status;

enum {
  BK_OK = 0,
  BK_E_INVALID = 1,   /* bad argument (a kind name, an FPR outside (0, 1)) */
  BK_E_MISMATCH = 2,  /* key type, kind or shape differ; a value that does not convert */
  BK_E_CORRUPT = 3,   /* the bytes are not a valid bloomkit file */
  BK_E_LIMIT = 4,     /* a filter or state past PostgreSQL's 1 GB value limit */
  BK_E_MEMORY = 5,    /* out of memory */
  BK_E_INTERNAL = 6   /* anything else */
};

/* A key as the SQL value it came from (docs/POSTGRES.md lists which SQL
 * types give which tag). */
enum {
  BK_VALUE_INT = 1,       /* i: an integer of any width (int2, int4, int8) */
  BK_VALUE_FLOAT = 2,     /* f: float4 (widened exactly) or float8 */
  BK_VALUE_BYTES = 3,     /* data/size: text (UTF-8), bytea, uuid (16 bytes) */
  BK_VALUE_TIMESTAMP = 4, /* i: microseconds since 1970-01-01 00:00 UTC */
  BK_VALUE_DATE = 5       /* i: days since 1970-01-01 */
};
typedef struct bk_value {
  int tag;
  int64_t i;
  double f;
  const void* data;
  size_t size;
} bk_value;

/* The key_type id (docs/KEYS.md) a value of this tag gives an untyped filter. */
int bk_natural_key_type(int tag);

/* The largest file a bloomfilter value may be: PostgreSQL's varlena limit
 * (1 GB - 1) less its 4-byte header. */
#define BK_MAX_FILE_BYTES ((size_t)0x3fffffff - 4)

/* ---- reading a value: validation, queries, facts -------------------------- */

/* Checks that data[0, size) is a complete, valid bloomkit file (every header
 * field, both checksums, the kind's parameters against the payload): the
 * check bloomfilter's input and the bytea cast make. 0 or -1 (status). */
int bk_validate(const void* data, size_t size, bk_status* status);

typedef struct bk_reader bk_reader;
/* A read-only view of the filter in data[0, size), validated as bk_validate
 * does, over the reader's own 64-byte aligned copy of the bytes (the words of
 * a blocked filter need that alignment, and PostgreSQL aligns values to 8
 * bytes at most): `data` may be freed once this returns, and a caller may keep
 * the reader across calls (the extension caches one per call site, so a probe
 * reads the words in place without a copy per call). NULL on failure. */
bk_reader* bk_reader_open(const void* data, size_t size, bk_status* status);
void bk_reader_free(bk_reader* reader);
/* The header length of the file (the bytes a cache compares). */
size_t bk_reader_header_bytes(const bk_reader* reader);
/* 1 if the filter may contain the key, 0 if it certainly does not, -1 when
 * the value does not convert into the filter's key type (status). */
int bk_reader_contains(const bk_reader* reader, const bk_value* key, bk_status* status);

/* The fields of `bloomkit info --json` for the file, as a JSON object text
 * (NUL-terminated) written into out[0, capacity). Returns the length the
 * text needs (without the NUL); when that is >= capacity, call again with
 * more. -1 on failure (status). */
long bk_info_json(const void* data, size_t size, char* out, size_t capacity, bk_status* status);
/* estimated_cardinality() and estimated_fpr() of the filter. 0 or -1. */
int bk_estimates(const void* data, size_t size, double* cardinality, double* fpr, bk_status* status);

/* ---- building: the aggregates' state and the value-returning functions ----- */

typedef struct bk_builder bk_builder;

/* A new empty builder for bloom_agg: `kind` (NULL: "blocked") by the CLI's
 * names, `capacity` keys (< 0: not given; the builder then keeps the keys'
 * distinct 64-bit hashes and sizes the filter for their count when it is
 * finished), `fpr` (< 0: not given, 0.01), keys of `key_type` (a docs/KEYS.md
 * id). A planned file past BK_MAX_FILE_BYTES is refused here, before anything
 * is allocated. NULL on failure. */
bk_builder* bk_builder_new(const char* kind, int64_t capacity, double fpr, int key_type, bk_status* status);
/* A builder holding a copy of the filter in data[0, size) (bloom_add,
 * bloom_merge, the union and intersection aggregates). NULL on failure. */
bk_builder* bk_builder_from_file(const void* data, size_t size, bk_status* status);
void bk_builder_free(bk_builder* builder);

/* Adds one key (converted into the filter's key type, or refused). 0 / -1. */
int bk_builder_add(bk_builder* builder, const bk_value* key, bk_status* status);
/* Combines `other` into `builder`: union (op 0) or intersection (op 1) of two
 * filters of one shape, or, for bloom_agg's states without a capacity, the
 * union of their hash sets. 0 / -1. */
int bk_builder_combine(bk_builder* builder, const bk_builder* other, int op, bk_status* status);
/* Combines the filter in data[0, size) into `builder` (as bk_builder_combine). */
int bk_builder_combine_file(bk_builder* builder, const void* data, size_t size, int op, bk_status* status);

/* The size of the aggregate state's serialization (bk_builder_serialize),
 * or 0 on failure (status; a state past the 1 GB limit is refused). */
size_t bk_builder_state_bytes(bk_builder* builder, bk_status* status);
/* Writes the state into out[0, bk_builder_state_bytes()). 0 / -1. */
int bk_builder_serialize(const bk_builder* builder, void* out, size_t size, bk_status* status);
/* The builder a serialized state describes. NULL on failure. */
bk_builder* bk_builder_deserialize(const void* data, size_t size, bk_status* status);

/* Makes the filter final, at most max_keys keys at a time, so the caller can
 * check for cancellation between calls: a builder without a capacity is
 * sized for its distinct hashes at the first call (a filter past
 * BK_MAX_FILE_BYTES is refused there, before it is allocated) and filled over
 * the calls. Returns the keys still to insert (0: finished), -1 on failure. */
long bk_builder_finish_step(bk_builder* builder, size_t max_keys, bk_status* status);
/* The size of the finished filter's file, or 0 on failure (status). */
size_t bk_builder_file_bytes(const bk_builder* builder, bk_status* status);
/* Writes the finished filter's file into out[0, size) (size from
 * bk_builder_file_bytes). 0 / -1. */
int bk_builder_write_file(const bk_builder* builder, void* out, size_t size, bk_status* status);

#ifdef __cplusplus
}
#endif

#endif
