/*
 * lookup_table — TF's lookup tables (lookup_table_op.h, initializable_lookup_table.h) as
 * resources of a device (state/resource_mgr.h), for the kernels of ops_lookup.def:
 *   - HASH: HashTable, immutable once initialized (InitializeTable, LookupTableImport or a
 *     text file); finding in an uninitialized one is FAILED_PRECONDITION "Table not
 *     initialized."; a second initialization with as many entries is accepted and changes
 *     nothing, with another count it is "Table was already initialized with different data."
 *     (TF compares sizes only); Insert/Remove are UNIMPLEMENTED.
 *   - MUTABLE: MutableHashTable, scalar values; MUTABLE_TENSORS: MutableHashTableOfTensors,
 *     each value a tensor of value_shape. Always initialized; Import replaces everything.
 *   - DENSE: MutableDenseHashTable, TF's open-addressing table: two bucket arrays (keys
 *     [N, key elems], values [N, value elems], N a power of 2 >= 4) probed quadratically from
 *     the key's hash (integers their value, strings TF's Hash64); a bucket holding empty_key
 *     is free, one holding deleted_key was removed, and using either as a key is
 *     INVALID_ARGUMENT. Keys may be vectors (the empty key's shape), values scalars or
 *     vectors. Insert grows (doubling) past max_load_factor; Export gives the bucket arrays
 *     and Import takes them, as TF's, so that checkpoints cross over.
 * Keys are string, int32 or int64 (compared by their bytes); values any fixed-size type or
 * string. Entries keep their insertion order (Export lists them in it; TF's order is its hash
 * map's, which no caller can rely on).
 *
 * Thread-safety: every function locks the table. Ownership: the resource manager and handles
 * hold references (tfc_resource_ref/unref on tfc_lookup_table_resource).
 */
#ifndef TFC_STATE_LOOKUP_TABLE_H
#define TFC_STATE_LOOKUP_TABLE_H

#include <stdint.h>

#include "base/status.h"
#include "state/resource_mgr.h"
#include "tensor/tensor.h"

typedef enum tfc_lookup_kind {
  TFC_LOOKUP_HASH = 0,
  TFC_LOOKUP_MUTABLE = 1,
  TFC_LOOKUP_MUTABLE_TENSORS = 2,
  TFC_LOOKUP_DENSE = 3,
  TFC_LOOKUP_KIND_COUNT
} tfc_lookup_kind;

typedef struct tfc_lookup_table tfc_lookup_table;

/* The resource kind of every table (TF's LookupInterface type name). */
extern const tfc_resource_kind tfc_lookup_table_kind;

/* A new empty table with one reference (the caller's), or NULL with status. value_shape is
 * used for MUTABLE_TENSORS only (NULL or a scalar otherwise). */
tfc_lookup_table *tfc_lookup_table_new(tfc_lookup_kind kind, int key_dtype, int value_dtype,
                                       const tfc_shape *value_shape, tfc_status *s);
/* A new DENSE table (TF's MutableDenseHashTable constructor, its checks and texts, all
 * INVALID_ARGUMENT: max_load_factor in (0, 1), value_shape and the keys scalars or vectors,
 * the keys of one shape and unequal, initial_num_buckets a power of 2 >= 4). empty_key and
 * deleted_key (key_dtype) are copied. NULL with status on error. */
tfc_lookup_table *tfc_lookup_table_new_dense(int key_dtype, int value_dtype, const tfc_shape *value_shape,
                                             const tfc_tensor *empty_key, const tfc_tensor *deleted_key,
                                             int64_t initial_num_buckets, float max_load_factor, tfc_status *s);
static inline tfc_resource *tfc_lookup_table_resource(tfc_lookup_table *t) { return (tfc_resource *)t; }
static inline tfc_lookup_table *tfc_lookup_table_from_resource(tfc_resource *r) { return (tfc_lookup_table *)r; }

tfc_lookup_kind tfc_lookup_table_kind_of(const tfc_lookup_table *t);
int tfc_lookup_table_key_dtype(const tfc_lookup_table *t);
int tfc_lookup_table_value_dtype(const tfc_lookup_table *t);
const tfc_shape *tfc_lookup_table_value_shape(const tfc_lookup_table *t);
/* The shape of one key: a scalar except for DENSE tables with vector keys. */
const tfc_shape *tfc_lookup_table_key_shape(const tfc_lookup_table *t);
int64_t tfc_lookup_table_size(tfc_lookup_table *t);
int tfc_lookup_table_is_initialized(tfc_lookup_table *t);

/* Values for keys (any shape) into out, allocated by the caller with keys' shape + value
 * shape; missing keys get default_value (the value shape, or one element to repeat: TF's
 * "[] or [1]" rule). Checks are the kernels'; this only fails for an uninitialized HASH
 * table (FAILED_PRECONDITION) or on out of memory. A DENSE table also checks the keys' shape
 * ([n] + key shape, or a scalar: "Expected key shape [2] got [2,3]") and the reserved keys;
 * it reads the default's first value. Insert and Remove likewise. */
int tfc_lookup_table_find(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *default_value,
                          tfc_tensor *out, tfc_status *s);
/* Inserts keys (n of them) with values (n * value elements), replacing existing values. */
int tfc_lookup_table_insert(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *values, tfc_status *s);
int tfc_lookup_table_remove(tfc_lookup_table *t, const tfc_tensor *keys, tfc_status *s);
/* Import: a HASH table is initialized (see the top comment); a mutable one replaced. */
int tfc_lookup_table_import(tfc_lookup_table *t, const tfc_tensor *keys, const tfc_tensor *values, tfc_status *s);
/* Every live entry: *out_keys [n], *out_values [n] + value shape (new tensors). */
int tfc_lookup_table_export(tfc_lookup_table *t, tfc_tensor **out_keys, tfc_tensor **out_values, tfc_status *s);

#endif
