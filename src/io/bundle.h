/*
 * bundle — TensorFlow's tensor bundles (util/tensor_bundle), the V2 checkpoint format that
 * SaveV2 writes and RestoreV2 reads.
 *
 * A bundle with prefix P is
 *   P.index                        a table (io/table.h): key "" -> BundleHeaderProto
 *                                  {num_shards, endianness LITTLE, version {producer 1}}, then
 *                                  every tensor name -> BundleEntryProto {dtype, shape,
 *                                  shard_id, offset, size, crc32c}, in bytewise key order;
 *   P.data-00000-of-0000N          the tensors' bytes, concatenated in the order they were
 *                                  added, no padding.
 * A tensor's bytes are its elements in little-endian row-major order; a string tensor is
 * every element's length as a varint64, the masked CRC-32C of those varints (4 bytes), then
 * the elements' bytes. An entry's crc32c is the masked CRC-32C of all of a tensor's bytes —
 * except that for strings both checksums cover each length as a little-endian uint32 where
 * the file holds its varint (TF's choice, kept for compatibility).
 * tfc writes exactly what TF's BundleWriter writes for the same tensors added in the same order,
 * byte for byte.
 *
 * Writes are atomic per file: the writer fills "<file>.tempstate<random>" for the data file
 * and the index, and renames them into place only once everything is written and flushed —
 * the data file first, the index (the commit point: readers look for it) last. A failed or
 * abandoned writer removes its temporary files, so an interrupted save never damages a bundle
 * already at that prefix or any other. A killed process cannot: its temporaries stay until
 * tfc_bundle_remove_stale_temps (the Saver calls it on its first save to a path), which tells
 * them from live ones by the flock(2) each writer holds on its temporaries while it writes.
 *
 * Reading opens the index (header checked), looks entries up on demand and reads a tensor
 * with one positioned read at its offset, verifying its checksum. Errors name the file at
 * fault: a missing index is NOT_FOUND, a malformed one or a checksum mismatch DATA_LOSS.
 *
 * Slices (partitioned variables' entries with `slices`) are not supported: reading one is
 * UNIMPLEMENTED naming the tensor.
 *
 * Ownership: writers and readers are caller-owned; tensors returned are new references.
 * Thread-safety: one thread per writer or reader at a time; different objects are independent.
 */
#ifndef TFC_IO_BUNDLE_H
#define TFC_IO_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "tensor/tensor.h"

/* "<prefix>.index" and "<prefix>.data-%05d-of-%05d": heap strings the caller frees (NULL on
 * OOM). */
char *tfc_bundle_index_path(const char *prefix);
char *tfc_bundle_data_path(const char *prefix, int shard, int num_shards);
/* True when "<prefix>.index" exists (tf.train.checkpoint_exists for V2). */
int tfc_bundle_exists(const char *prefix);
/* Deletes the bundle's index and data files (every shard the index names, and
 * "<prefix>.data-?????-of-?????" files otherwise). Best effort: returns how many files were
 * removed. */
int tfc_bundle_delete(const char *prefix);

/* Whether the bundle at prefix can be read back whole: opens the index (header checked) and
 * reads every tensor it lists, checking sizes and checksums (each data byte is read once).
 * TFC_OK, or the first failure: NOT_FOUND naming a missing index or data file, DATA_LOSS
 * naming the corrupt file (and tensor). */
int tfc_bundle_verify(const char *prefix, tfc_status *s);
/* Removes the temporary files that writers killed mid-save left behind for bundles at
 * save_path or "<save_path>-<step>" ("<...>.index.tempstate<n>", "<...>.data-?????-of-?????
 * .tempstate<n>"), except those a live writer holds: each writer keeps an exclusive flock(2) on
 * its temporary files until they are renamed into place or removed, in this process or
 * another. Other files are never touched. Best effort: returns how many were removed. */
int tfc_bundle_remove_stale_temps(const char *save_path);

/* ---------------------------------------------------------------- writing */

typedef struct tfc_bundle_writer tfc_bundle_writer;

/* Starts a single-shard bundle at prefix: creates prefix's directory (and parents) when
 * missing and opens the temporary data file. NULL with the file's error (naming it). */
tfc_bundle_writer *tfc_bundle_writer_new(const char *prefix, tfc_status *s);
/* Appends tensor t (borrowed) under key. INVALID_ARGUMENT for a duplicate key ("Adding
 * duplicate key: <key>") or a dtype without a byte encoding (resource, variant); write errors
 * name the file. After an error the writer only reports it. */
int tfc_bundle_writer_add(tfc_bundle_writer *w, const char *key, const tfc_tensor *t, tfc_status *s);
/* Writes the index, flushes and closes both files and renames them into place. On error the
 * temporary files are removed and nothing at prefix has changed (unless the final index
 * rename itself failed after the data file's). */
int tfc_bundle_writer_finish(tfc_bundle_writer *w, tfc_status *s);
/* Frees w; an unfinished writer's temporary files are removed. NULL: no-op. */
void tfc_bundle_writer_free(tfc_bundle_writer *w);

/* ---------------------------------------------------------------- reading */

typedef struct tfc_bundle_reader tfc_bundle_reader;

/* Opens "<prefix>.index" and checks its header (little endian, version). NULL with status:
 * NOT_FOUND "<prefix>.index; No such file or directory", DATA_LOSS naming the file,
 * UNIMPLEMENTED for a big-endian bundle. */
tfc_bundle_reader *tfc_bundle_reader_open(const char *prefix, tfc_status *s);
void tfc_bundle_reader_free(tfc_bundle_reader *r); /* NULL: no-op */

/* The dtype and shape saved under key. NOT_FOUND "Key <key> not found in checkpoint <prefix>"
 * (TF's text plus the prefix); DATA_LOSS for a malformed entry; UNIMPLEMENTED for a sliced
 * entry. out_dims has room for TFC_MAX_DIMS. */
int tfc_bundle_reader_lookup(tfc_bundle_reader *r, const char *key, int *out_dtype, int *out_ndims,
                             int64_t *out_dims, tfc_status *s);
/* Reads key's value into dst (caller-made, of the saved dtype and shape: INVALID_ARGUMENT
 * otherwise), checking its size and checksum (DATA_LOSS naming the data file). */
int tfc_bundle_reader_read_into(tfc_bundle_reader *r, const char *key, tfc_tensor *dst, tfc_status *s);
/* Lookup + a new tensor + read_into. */
tfc_tensor *tfc_bundle_reader_read(tfc_bundle_reader *r, const char *key, tfc_status *s);
/* Every tensor name of the bundle, in the index's (bytewise) order: a malloc'd array of
 * malloc'd strings (the caller frees both) and its length. Reading errors as for lookup. */
int tfc_bundle_reader_keys(tfc_bundle_reader *r, char ***out_keys, int *out_n, tfc_status *s);

/* ---------------------------------------------------------------- merging */

/* TF's MergeBundles (the MergeV2Checkpoints kernel): the bundles at prefixes[0, n) become one
 * bundle at dest. Each source data file is renamed to "<dest>.data-<k>-of-<m>" (k numbered in
 * order of first use), every entry keeps its bytes with its shard_id rewritten, and the merged
 * index is written (atomically) at dest; then the sources' index files are deleted.
 * FAILED_PRECONDITION "Duplicate tensor keyed by <key> encountered, when merging prefix:
 * <prefix>" when two sources hold one key; the sources' open errors otherwise. */
int tfc_bundle_merge(const char *const *prefixes, int n, const char *dest, tfc_status *s);

#endif
