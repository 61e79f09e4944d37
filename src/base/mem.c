/* mem — see mem.h. */
#include "base/mem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *tfc_aligned_alloc(size_t size) {
  size_t rounded = (size + TFC_ALIGN - 1) & ~(size_t)(TFC_ALIGN - 1);
  if (rounded == 0) rounded = TFC_ALIGN;
  return aligned_alloc(TFC_ALIGN, rounded);
}

void tfc_aligned_free(void *p) { free(p); }

#define BLOCK_MIN (256u << 10)
#define BLOCK_ROUND (64u << 10)
#define CACHE_SLOTS 256
/* The cache's budget: an eighth of the machine's memory, at least 512 MiB and at most 4 GiB.
 * Batch-32 inference holds more than 512 MiB of activations (ResNet50: several hundred MiB
 * live, in some thirty sizes): with the cache full, every block of a size not yet cached went
 * back to the kernel when freed, and the next step page-faulted it in again, a tenth of its
 * time (MobileNetV2: 12,000 faults per step). */
#define CACHE_MIN_BYTES ((size_t)512 << 20)
#define CACHE_MAX_BYTES ((size_t)4096 << 20)
static size_t cache_budget;
static pthread_once_t budget_once = PTHREAD_ONCE_INIT;

static void budget_init(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t b = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 8 : CACHE_MIN_BYTES;
  cache_budget = b < CACHE_MIN_BYTES ? CACHE_MIN_BYTES : b > CACHE_MAX_BYTES ? CACHE_MAX_BYTES : b;
}

static struct {
  pthread_mutex_t mu;
  int n;
  size_t bytes;
  size_t size[CACHE_SLOTS];
  void *ptr[CACHE_SLOTS];
} cache = {PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}, {0}};

static size_t block_size(size_t size) { return (size + BLOCK_ROUND - 1) & ~(size_t)(BLOCK_ROUND - 1); }

/* Small blocks: a per-thread cache of freed blocks per size class, SMALL_KEEP of each class up
 * to SMALL_MAX bytes (classes TFC_ALIGN bytes apart), MEDIUM_KEEP of each class above, up to
 * MEDIUM_MAX (four classes per doubling, each allocated at its class's top size). The system
 * allocator serves an aligned request through its slow path (about a thousand instructions
 * for a scalar's buffer, the bigger part of a scalar loop iteration), and a request above its
 * small bins first consolidates its fast bins (a small model's activations and gradients, a
 * few KiB each, every step); the cache serves one in a few instructions. A block freed on
 * another thread joins that thread's cache; a thread's cache is freed when the thread ends.
 * At most about 2 MiB stays in one thread's cache. */
#define SMALL_MAX 1024u
#define SMALL_CLASSES (SMALL_MAX / TFC_ALIGN)
#define MEDIUM_MAX (64u << 10)
#define MEDIUM_CLASSES 24 /* 1 KiB to 64 KiB: six doublings of four classes */
#define N_CLASSES (SMALL_CLASSES + MEDIUM_CLASSES)
#define SMALL_KEEP 32
#define MEDIUM_KEEP 4

typedef struct small_cache {
  int n[N_CLASSES];
  void *blk[N_CLASSES][SMALL_KEEP];
} small_cache;

/* The thread's cache, made at its first small free. A pointer with the initial-exec TLS model
 * reads in one instruction (the default model for a shared library calls __tls_get_addr on
 * every access). But one initial-exec access puts the library's whole TLS segment in the
 * static TLS a dlopen'ed library may use (a few KiB at most), and a CUDA build's segment holds
 * the static CUDA runtime's 4 KiB block aligned to 4 KiB: dlopen (Python's import of the
 * extension over libtfc) then fails with "cannot allocate memory in static TLS block". So a
 * CUDA build keeps the default model. */
#ifdef TFC_HAVE_CUDA
static _Thread_local small_cache *tl_small;
#else
static _Thread_local small_cache *tl_small __attribute__((tls_model("initial-exec")));
#endif
static pthread_key_t small_key;
static pthread_once_t small_once = PTHREAD_ONCE_INIT;

static void small_trim(small_cache *c) {
  for (int k = 0; k < N_CLASSES; k++) {
    while (c->n[k] > 0) free(c->blk[k][--c->n[k]]);
  }
}

static void small_thread_end(void *c) {
  small_trim(c);
  free(c);
  tl_small = NULL;
}

static void small_key_init(void) {
  if (pthread_key_create(&small_key, small_thread_end) != 0) small_key = (pthread_key_t)-1;
}

/* The calling thread's cache, registered to go when the thread does; NULL when none can be
 * made (the caller frees blocks directly). */
static __attribute__((noinline)) small_cache *small_cache_new(void) {
  pthread_once(&small_once, small_key_init);
  if (small_key == (pthread_key_t)-1) return NULL;
  small_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (pthread_setspecific(small_key, c) != 0) {
    free(c);
    return NULL;
  }
  tl_small = c;
  return c;
}

/* The size class of an allocation of `size` bytes (< N_CLASSES), or -1; *bytes, its size. */
static int small_class(size_t size, size_t *bytes) {
  if (size <= SMALL_MAX) {
    int k = size == 0 ? 0 : (int)((size - 1) / TFC_ALIGN);
    *bytes = (size_t)(k + 1) * TFC_ALIGN;
    return k;
  }
  if (size > MEDIUM_MAX) return -1;
  size_t v = size - 1;                        /* in [1024, 65535] */
  int o = 63 - __builtin_clzll(v) - 10;       /* the doubling above 1 KiB: 0..5 */
  int q = (int)(v >> (o + 8)) & 3;            /* the quarter within it */
  *bytes = (size_t)(5 + q) << (o + 8);
  return (int)SMALL_CLASSES + 4 * o + q;
}

void *tfc_block_alloc(size_t size) {
  size_t bytes;
  int k = small_class(size, &bytes);
  if (k >= 0) {
    small_cache *c = tl_small;
    if (c && c->n[k] > 0) return c->blk[k][--c->n[k]];
    return aligned_alloc(TFC_ALIGN, bytes);
  }
  if (size < BLOCK_MIN) return tfc_aligned_alloc(size);
  size_t r = block_size(size);
  pthread_mutex_lock(&cache.mu);
  for (int i = cache.n - 1; i >= 0; i--)
    if (cache.size[i] == r) {
      void *p = cache.ptr[i];
      cache.bytes -= r;
      cache.n--;
      cache.size[i] = cache.size[cache.n];
      cache.ptr[i] = cache.ptr[cache.n];
      pthread_mutex_unlock(&cache.mu);
      return p;
    }
  pthread_mutex_unlock(&cache.mu);
  return aligned_alloc(TFC_ALIGN, r);
}

void tfc_block_free(void *p, size_t size) {
  if (!p) return;
  size_t bytes;
  int k = small_class(size, &bytes);
  if (k >= 0) {
    small_cache *c = tl_small;
    if (!c) c = small_cache_new();
    if (c && c->n[k] < (k < (int)SMALL_CLASSES ? SMALL_KEEP : MEDIUM_KEEP)) {
      c->blk[k][c->n[k]++] = p;
      return;
    }
    free(p);
    return;
  }
  if (size < BLOCK_MIN) {
    free(p);
    return;
  }
  size_t r = block_size(size);
  pthread_once(&budget_once, budget_init);
  pthread_mutex_lock(&cache.mu);
  if (cache.n < CACHE_SLOTS && cache.bytes + r <= cache_budget) {
    cache.size[cache.n] = r;
    cache.ptr[cache.n++] = p;
    cache.bytes += r;
    p = NULL;
  }
  pthread_mutex_unlock(&cache.mu);
  free(p);
}

void tfc_block_cache_trim(void) {
  if (tl_small) small_trim(tl_small);
  pthread_mutex_lock(&cache.mu);
  for (int i = 0; i < cache.n; i++) free(cache.ptr[i]);
  cache.n = 0;
  cache.bytes = 0;
  pthread_mutex_unlock(&cache.mu);
}

char *tfc_strdup(const char *s) { return s ? strdup(s) : NULL; }

char *tfc_strndup(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (!r) return NULL;
  if (n) memcpy(r, s, n);
  r[n] = '\0';
  return r;
}
