/*
 * mem — allocation helpers. Tensor data is 64-byte aligned (a cache line and an AVX-512
 * register), which is what vectorized kernels and BLAS want; TF aligns to 64 as well.
 */
#ifndef TFC_BASE_MEM_H
#define TFC_BASE_MEM_H

#include <stddef.h>

#define TFC_ALIGN 64

/* Aligned allocation of `size` bytes (size 0 gives a valid unique pointer). NULL on OOM.
 * Free with tfc_aligned_free. */
void *tfc_aligned_alloc(size_t size);
void tfc_aligned_free(void *p);
/*
 * Large blocks (tensor buffers). Blocks of 256 KiB and more are rounded up to 64 KiB and, when
 * freed, kept in a process-wide cache (at most 256 blocks, and an eighth of the machine's
 * memory between 512 MiB and 4 GiB) from which the next allocation of the same rounded size is
 * served; it is emptied when the process's last session is deleted. A training step frees and allocates the same
 * large buffers (activations, gradients, new variable values) every step; from the system
 * allocator each would be a fresh mmap, page-faulted and zeroed again (about a tenth of a CNN
 * step). Blocks of at most 64 KiB (scalars, small vectors, a small model's activations) come
 * from a per-thread cache of freed ones (32 per 64-byte size up to 1 KiB, 4 per size class of a
 * quarter doubling above), which the system allocator's aligned path is far slower than;
 * other blocks go straight to tfc_aligned_alloc. tfc_block_free must be given the size
 * passed to tfc_block_alloc. Thread-safe.
 */
void *tfc_block_alloc(size_t size);
void tfc_block_free(void *p, size_t size);
/* Frees every cached block (the last session's deletion, tests, and programs that want the
 * memory back): the large-block cache and this thread's small blocks. */
void tfc_block_cache_trim(void);
/* strdup that returns NULL for NULL. */
char *tfc_strdup(const char *s);
/* Copies n bytes into a new NUL-terminated heap string. */
char *tfc_strndup(const char *s, size_t n);

#define TFC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
