/*
 * bfc — a best-fit-with-coalescing arena (TF's BFCAllocator) for device memory.
 *
 * The arena carves tensors out of large regions it obtains from a region allocator (the GPU
 * platform's mem_alloc): requests are rounded up to 256 bytes and served from the smallest free
 * chunk that fits (size-class bins of doubling sizes, each ordered by size then address); a
 * chunk much larger than the request is split and the rest goes back to a bin; a freed chunk
 * merges with free neighbours in the same region. When nothing fits, the arena asks for a new
 * region: with allow_growth, of double the previous region's size (starting at 2 MiB, at least
 * the request, at most what is left of the limit); without it, the whole limit at once, on the
 * first allocation (TF's default: grab per_process_gpu_memory_fraction of the memory up
 * front — tfc still waits for the first kernel that needs memory, so listing devices or creating
 * a session takes none). The arena never holds more than `limit` bytes of regions.
 *
 * Statistics as TF's AllocatorStats: bytes in use, peak, largest allocation, number of
 * allocations, bytes reserved (regions), limit. On failure the arena describes itself for
 * the out-of-memory message: free chunks per bin and the largest free chunk.
 *
 * Ownership: the arena owns its regions and frees them at _free (allocations still live then
 * are a bug of the caller's; they are reported by tfc_bfc_free's return value). Thread-safety:
 * all functions are thread-safe (one mutex).
 */
#ifndef TFC_DEVICE_GPU_BFC_H
#define TFC_DEVICE_GPU_BFC_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "base/strbuf.h"

typedef struct tfc_bfc tfc_bfc;

/* Where regions come from: alloc returns 0 and *out, or a status code (RESOURCE_EXHAUSTED when
 * the device has no more memory); free gives a region back. */
typedef struct tfc_bfc_region_fns {
  int (*alloc)(void *arg, size_t bytes, void **out, tfc_status *s);
  void (*free)(void *arg, void *p);
  void *arg;
} tfc_bfc_region_fns;

typedef struct tfc_bfc_stats {
  int64_t bytes_in_use, peak_bytes_in_use, largest_alloc_size, n_allocs;
  int64_t bytes_reserved; /* regions held */
  int64_t bytes_limit;
} tfc_bfc_stats;

/* name: for messages ("GPU_0_bfc", TF's name). limit: bytes the arena may hold. NULL on out of
 * memory. */
tfc_bfc *tfc_bfc_new(const char *name, int64_t limit, int allow_growth, const tfc_bfc_region_fns *fns);
/* Frees every region; returns the number of allocations that were still live. NULL: 0. */
int tfc_bfc_free(tfc_bfc *b);
/* n bytes (n == 0 gives a valid 256-byte chunk), 256-byte aligned. On failure NULL and s is
 * RESOURCE_EXHAUSTED "OOM when allocating <n> bytes in <name>: <in use> in use, <reserved>
 * reserved of <limit> limit, largest free chunk <bytes>" (the caller adds node and shape). */
void *tfc_bfc_alloc(tfc_bfc *b, size_t n, tfc_status *s);
/* p from tfc_bfc_alloc of this arena (NULL: no-op). */
void tfc_bfc_release(tfc_bfc *b, void *p);
/* The usable size of an allocation (its chunk's size). */
size_t tfc_bfc_size(tfc_bfc *b, const void *p);
tfc_bfc_stats tfc_bfc_get_stats(tfc_bfc *b);
/* A multi-line summary of the arena (regions, chunks in use and free per bin), for OOM reports
 * and debugging. */
void tfc_bfc_describe(tfc_bfc *b, tfc_strbuf *out);

#endif
