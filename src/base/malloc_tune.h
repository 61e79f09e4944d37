/*
 * malloc_tune — process-wide settings of the C library's allocator that suit a dataflow
 * runtime, applied once when the CPU device is first set up.
 *
 * A step allocates and frees the same small tensors (a few KiB to 256 KiB; larger ones are kept
 * by tfc_block_alloc's cache) over and over. glibc gives the free space at the top of its heap
 * back to the kernel whenever it exceeds 128 KiB (M_TRIM_THRESHOLD), so every step of a loop
 * shrank the heap and the next one page-faulted it back in: for an LSTM's inference (bench_lstm)
 * hundreds of page faults per run (50 times fewer with these settings) and a quarter of its CPU
 * time. tfc_malloc_tune keeps up to 64 MiB of free heap
 * (M_TRIM_THRESHOLD) and serves blocks under 1 MiB from the heap (M_MMAP_THRESHOLD; setting
 * the trim threshold would otherwise pin that to 128 KiB). Memory stays bounded: free space
 * beyond 64 MiB is still returned, and tfc_block_cache_trim / malloc_trim work as before.
 *
 * A program that chose its own settings keeps them: nothing is changed when the environment
 * has MALLOC_TRIM_THRESHOLD_, MALLOC_MMAP_THRESHOLD_, MALLOC_TOP_PAD_ or a glibc.malloc
 * tunable in GLIBC_TUNABLES, or has TFC_MALLOC_TUNE=0. Other C libraries: nothing is done.
 */
#ifndef TFC_BASE_MALLOC_TUNE_H
#define TFC_BASE_MALLOC_TUNE_H

/* Applies the settings above once per process; thread-safe, never fails (a refused mallopt
 * leaves glibc's defaults). */
void tfc_malloc_tune(void);

#endif
