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
/* strdup that returns NULL for NULL. */
char *tfc_strdup(const char *s);
/* Copies n bytes into a new NUL-terminated heap string. */
char *tfc_strndup(const char *s, size_t n);

#define TFC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
