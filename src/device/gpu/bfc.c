/*
 * bfc — TF's best-fit-with-coalescing allocator over regions from a region allocator.
 *
 * Data structures (all guarded by one mutex):
 *  - regions: an array of {base, size, first chunk}; each region is a doubly linked list of
 *    chunks in address order that tiles it exactly, so the neighbours a freed chunk may merge
 *    with are its list neighbours, and merging never crosses a region boundary even when two
 *    regions happen to be adjacent in memory.
 *  - bins: 21 size classes (bin i holds free chunks of [256 << i, 256 << (i+1)), the last one
 *    unbounded), each an ordered set keyed by (size, address). A treap keeps every operation
 *    O(log n) expected; its priorities hash the chunk address, so runs are deterministic.
 *    Searching bins from the request's bin upwards and taking the first chunk >= the request
 *    yields the smallest fitting chunk, lowest address first among equals (TF's FindChunkPtr).
 *  - in_use: an open-addressing hash map (linear probing, backward-shift deletion) from the
 *    address of each allocation to its chunk, for release and size lookups in O(1).
 *    TF instead keeps a chunk handle per 256-byte slot of every region; for a device with
 *    over 100 GiB that costs gigabytes of host memory, a hash map of live allocations does not.
 *
 * Splitting follows TF: a chunk is split when the remainder is at least 256 bytes and either
 * the chunk is at least twice the request or the remainder is at least 128 MiB; otherwise the
 * whole chunk is handed out and its full size counts as in use.
 *
 * Host bookkeeping (chunk records, the hash map, the region array) comes from malloc; when it
 * runs out the allocation fails with RESOURCE_EXHAUSTED like a device out-of-memory, and the
 * arena stays consistent.
 */
#include "device/gpu/bfc.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* TF's kMinAllocationBits: every chunk is a multiple of 256 bytes and 256-byte aligned, what
 * cuDNN and cuBLAS want of their operands. */
#define BFC_MIN_BITS 8
#define BFC_MIN_SIZE ((size_t)1 << BFC_MIN_BITS)
/* TF's kNumBins: the last bin starts at 256 << 20 = 256 MiB and holds everything above. */
#define BFC_N_BINS 21
/* TF's kMaxInternalFragmentation: a remainder this big is always split off, even when the
 * request is more than half of the chunk. */
#define BFC_MAX_INTERNAL_FRAGMENTATION ((size_t)128 << 20)
/* The first region under allow_growth (TF starts at min(limit, 2 MiB)). */
#define BFC_FIRST_GROWTH_REGION ((size_t)2 << 20)

typedef struct bfc_region bfc_region;

typedef struct bfc_chunk {
  char *ptr;
  size_t size;
  int in_use;
  struct bfc_chunk *prev, *next; /* address-order neighbours within the region */
  /* Treap links while free. */
  struct bfc_chunk *left, *right;
  uint64_t prio;
} bfc_chunk;

struct bfc_region {
  char *base;
  size_t size;
  bfc_chunk *first;
};

typedef struct bfc_slot {
  uintptr_t key; /* 0: empty */
  bfc_chunk *chunk;
} bfc_slot;

struct tfc_bfc {
  pthread_mutex_t mu;
  char *name;
  int64_t limit;
  int allow_growth;
  tfc_bfc_region_fns fns;
  bfc_region *regions;
  size_t n_regions, cap_regions;
  bfc_chunk *bins[BFC_N_BINS];
  int64_t bin_free_count[BFC_N_BINS];
  bfc_slot *slots; /* in-use map */
  size_t cap_slots, n_live;
  tfc_bfc_stats stats;
};

static size_t round_up(size_t n) { return (n + BFC_MIN_SIZE - 1) & ~(BFC_MIN_SIZE - 1); }

static int bin_for_size(size_t size) {
  size_t units = size >> BFC_MIN_BITS;
  int bin = 0;
  while (units > 1 && bin < BFC_N_BINS - 1) {
    units >>= 1;
    bin++;
  }
  return bin;
}

/* splitmix64: a well-mixed treap priority from the chunk address. */
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* ---- Treap keyed by (size, ptr) ---- */

static int key_less(const bfc_chunk *a, const bfc_chunk *b) {
  return a->size < b->size || (a->size == b->size && a->ptr < b->ptr);
}

/* Splits t into the chunks ordered before key and those after it (key itself is not in t). */
static void treap_split(bfc_chunk *t, const bfc_chunk *key, bfc_chunk **lo, bfc_chunk **hi) {
  if (!t) {
    *lo = *hi = NULL;
  } else if (key_less(t, key)) {
    treap_split(t->right, key, &t->right, hi);
    *lo = t;
  } else {
    treap_split(t->left, key, lo, &t->left);
    *hi = t;
  }
}

/* Joins two treaps where every key of a precedes every key of b. */
static bfc_chunk *treap_merge(bfc_chunk *a, bfc_chunk *b) {
  if (!a) return b;
  if (!b) return a;
  if (a->prio > b->prio) {
    a->right = treap_merge(a->right, b);
    return a;
  }
  b->left = treap_merge(a, b->left);
  return b;
}

static bfc_chunk *treap_insert(bfc_chunk *t, bfc_chunk *c) {
  if (!t) return c;
  if (c->prio > t->prio) {
    treap_split(t, c, &c->left, &c->right);
    return c;
  }
  if (key_less(c, t))
    t->left = treap_insert(t->left, c);
  else
    t->right = treap_insert(t->right, c);
  return t;
}

static bfc_chunk *treap_remove(bfc_chunk *t, bfc_chunk *c) {
  if (t == c) return treap_merge(c->left, c->right);
  if (key_less(c, t))
    t->left = treap_remove(t->left, c);
  else
    t->right = treap_remove(t->right, c);
  return t;
}

static void bin_insert(tfc_bfc *b, bfc_chunk *c) {
  int bin = bin_for_size(c->size);
  c->left = c->right = NULL;
  c->prio = mix((uint64_t)(uintptr_t)c->ptr);
  b->bins[bin] = treap_insert(b->bins[bin], c);
  b->bin_free_count[bin]++;
}

static void bin_remove(tfc_bfc *b, bfc_chunk *c) {
  int bin = bin_for_size(c->size);
  b->bins[bin] = treap_remove(b->bins[bin], c);
  b->bin_free_count[bin]--;
  c->left = c->right = NULL;
}

/* The smallest free chunk of at least size bytes (lowest address among equals), or NULL. */
static bfc_chunk *find_best_fit(tfc_bfc *b, size_t size) {
  for (int bin = bin_for_size(size); bin < BFC_N_BINS; bin++) {
    bfc_chunk *best = NULL;
    for (bfc_chunk *t = b->bins[bin]; t;) {
      if (t->size >= size) {
        best = t;
        t = t->left;
      } else {
        t = t->right;
      }
    }
    if (best) return best;
  }
  return NULL;
}

static size_t largest_free(const tfc_bfc *b) {
  for (int bin = BFC_N_BINS - 1; bin >= 0; bin--) {
    const bfc_chunk *t = b->bins[bin];
    if (!t) continue;
    while (t->right) t = t->right;
    return t->size;
  }
  return 0;
}

/* ---- In-use map: allocation address -> chunk ---- */

static size_t slot_of(const tfc_bfc *b, uintptr_t key) {
  return (size_t)(mix(key >> BFC_MIN_BITS) & (b->cap_slots - 1));
}

static bfc_chunk *map_get(const tfc_bfc *b, const void *p) {
  if (!b->cap_slots || !p) return NULL;
  uintptr_t key = (uintptr_t)p;
  for (size_t i = slot_of(b, key);; i = (i + 1) & (b->cap_slots - 1)) {
    if (b->slots[i].key == key) return b->slots[i].chunk;
    if (!b->slots[i].key) return NULL;
  }
}

/* Inserts without growing: the caller has reserved room with map_reserve. */
static void map_put(tfc_bfc *b, bfc_chunk *c) {
  uintptr_t key = (uintptr_t)c->ptr;
  size_t i = slot_of(b, key);
  while (b->slots[i].key) i = (i + 1) & (b->cap_slots - 1);
  b->slots[i].key = key;
  b->slots[i].chunk = c;
  b->n_live++;
}

/* Makes room for one more entry (load factor at most 1/2). Returns 0, or -1 on out of memory. */
static int map_reserve(tfc_bfc *b) {
  if ((b->n_live + 1) * 2 <= b->cap_slots) return 0;
  size_t cap = b->cap_slots ? b->cap_slots * 2 : 64;
  bfc_slot *slots = calloc(cap, sizeof *slots);
  if (!slots) return -1;
  bfc_slot *old = b->slots;
  size_t old_cap = b->cap_slots;
  b->slots = slots;
  b->cap_slots = cap;
  b->n_live = 0;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].key) map_put(b, old[i].chunk);
  free(old);
  return 0;
}

/* Removes p's entry (present) and shifts later entries of its probe run back into the hole,
 * so lookups never need tombstones. */
static void map_remove(tfc_bfc *b, const void *p) {
  size_t mask = b->cap_slots - 1;
  uintptr_t key = (uintptr_t)p;
  size_t i = slot_of(b, key);
  while (b->slots[i].key != key) i = (i + 1) & mask;
  size_t hole = i;
  for (size_t j = (hole + 1) & mask; b->slots[j].key; j = (j + 1) & mask) {
    size_t home = slot_of(b, b->slots[j].key);
    /* j's entry may move into the hole unless its home lies cyclically in (hole, j]. */
    int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (stays) continue;
    b->slots[hole] = b->slots[j];
    hole = j;
  }
  b->slots[hole].key = 0;
  b->slots[hole].chunk = NULL;
  b->n_live--;
}

/* ---- Lifetime ---- */

tfc_bfc *tfc_bfc_new(const char *name, int64_t limit, int allow_growth, const tfc_bfc_region_fns *fns) {
  if (!fns || !fns->alloc || !fns->free) return NULL;
  tfc_bfc *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->name = tfc_strdup(name ? name : "bfc");
  if (!b->name || pthread_mutex_init(&b->mu, NULL) != 0) {
    free(b->name);
    free(b);
    return NULL;
  }
  b->limit = limit > 0 ? limit : 0;
  b->allow_growth = allow_growth != 0;
  b->fns = *fns;
  b->stats.bytes_limit = b->limit;
  return b;
}

int tfc_bfc_free(tfc_bfc *b) {
  if (!b) return 0;
  int live = (int)b->n_live;
  for (size_t r = 0; r < b->n_regions; r++) {
    for (bfc_chunk *c = b->regions[r].first; c;) {
      bfc_chunk *next = c->next;
      free(c);
      c = next;
    }
    b->fns.free(b->fns.arg, b->regions[r].base);
  }
  free(b->regions);
  free(b->slots);
  pthread_mutex_destroy(&b->mu);
  free(b->name);
  free(b);
  return live;
}

/* ---- Allocation ---- */

/* Sets the out-of-memory status; detail (may be NULL) says why no region could be added. */
static void set_oom(tfc_bfc *b, size_t n, const char *detail, tfc_status *s) {
  tfc_status_set(s, TFC_RESOURCE_EXHAUSTED,
                 "OOM when allocating %zu bytes in %s: %lld in use, %lld reserved of %lld limit, "
                 "largest free chunk %lld%s%s%s",
                 n, b->name, (long long)b->stats.bytes_in_use, (long long)b->stats.bytes_reserved,
                 (long long)b->limit, (long long)largest_free(b), detail ? " (" : "", detail ? detail : "",
                 detail ? ")" : "");
}

/* Adds a region big enough for `rounded` bytes, its one free chunk going into a bin.
 * Returns 0, or -1 with *detail set to a heap string (or left NULL) explaining the failure. */
static int extend(tfc_bfc *b, size_t rounded, char **detail) {
  /* What the limit still allows, in whole 256-byte units. */
  uint64_t left = (uint64_t)(b->limit - b->stats.bytes_reserved);
  if (left > SIZE_MAX) left = SIZE_MAX;
  size_t available = (size_t)left & ~(BFC_MIN_SIZE - 1);
  size_t want = available;
  if (b->allow_growth) {
    if (b->n_regions == 0) {
      want = rounded > BFC_FIRST_GROWTH_REGION ? rounded : BFC_FIRST_GROWTH_REGION;
    } else {
      size_t prev = b->regions[b->n_regions - 1].size;
      size_t doubled = prev > SIZE_MAX / 2 ? SIZE_MAX & ~(BFC_MIN_SIZE - 1) : prev * 2;
      want = rounded > doubled ? rounded : doubled;
    }
    if (want > available) want = available;
  }
  if (want < rounded || want == 0) return -1;

  if (b->n_regions == b->cap_regions) {
    size_t cap = b->cap_regions ? b->cap_regions * 2 : 8;
    bfc_region *regions = realloc(b->regions, cap * sizeof *regions);
    if (!regions) {
      *detail = tfc_strdup("out of host memory for the region table");
      return -1;
    }
    b->regions = regions;
    b->cap_regions = cap;
  }
  bfc_chunk *c = calloc(1, sizeof *c);
  if (!c) {
    *detail = tfc_strdup("out of host memory for a chunk record");
    return -1;
  }

  /* The region allocator gets its own status: the caller's may not be touched until we know
   * the outcome, and its message goes into ours. */
  tfc_status rs;
  tfc_status_init(&rs);
  void *base = NULL;
  int code = b->fns.alloc(b->fns.arg, want, &base, &rs);
  if (code == TFC_OK && (!base || ((uintptr_t)base & (BFC_MIN_SIZE - 1)))) {
    if (base) b->fns.free(b->fns.arg, base);
    tfc_status_set(&rs, TFC_INTERNAL, "the region allocator returned %s",
                   base ? "memory not aligned to 256 bytes" : "NULL");
    code = TFC_INTERNAL;
  }
  if (code != TFC_OK) {
    tfc_strbuf sb;
    tfc_strbuf_init(&sb);
    tfc_strbuf_printf(&sb, "allocating a region of %zu bytes failed: %s: %s", want,
                      tfc_code_name(code), rs.msg ? rs.msg : "no message");
    *detail = tfc_strbuf_take(&sb);
    tfc_status_fini(&rs);
    free(c);
    return -1;
  }
  tfc_status_fini(&rs);

  c->ptr = base;
  c->size = want;
  bfc_region *r = &b->regions[b->n_regions++];
  r->base = base;
  r->size = want;
  r->first = c;
  b->stats.bytes_reserved += (int64_t)want;
  bin_insert(b, c);
  return 0;
}

void *tfc_bfc_alloc(tfc_bfc *b, size_t n, tfc_status *s) {
  if (!b) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "tfc_bfc_alloc: no allocator");
    return NULL;
  }
  pthread_mutex_lock(&b->mu);
  char *detail = NULL;
  bfc_chunk *c = NULL;
  /* A request beyond the address space cannot be rounded, let alone served. */
  if (n > SIZE_MAX - BFC_MIN_SIZE) goto oom;
  size_t rounded = n ? round_up(n) : BFC_MIN_SIZE;
  if (map_reserve(b) != 0) {
    detail = tfc_strdup("out of host memory for the allocation table");
    goto oom;
  }
  c = find_best_fit(b, rounded);
  if (!c) {
    if (extend(b, rounded, &detail) != 0) goto oom;
    c = find_best_fit(b, rounded);
  }
  bin_remove(b, c);

  size_t rest = c->size - rounded;
  if (rest >= BFC_MIN_SIZE && (c->size >= 2 * rounded || rest >= BFC_MAX_INTERNAL_FRAGMENTATION)) {
    /* Without a record for the remainder the whole chunk is handed out: wasteful, not wrong. */
    bfc_chunk *tail = calloc(1, sizeof *tail);
    if (tail) {
      tail->ptr = c->ptr + rounded;
      tail->size = rest;
      tail->prev = c;
      tail->next = c->next;
      if (c->next) c->next->prev = tail;
      c->next = tail;
      c->size = rounded;
      bin_insert(b, tail);
    }
  }
  c->in_use = 1;
  map_put(b, c);
  b->stats.bytes_in_use += (int64_t)c->size;
  if (b->stats.bytes_in_use > b->stats.peak_bytes_in_use) b->stats.peak_bytes_in_use = b->stats.bytes_in_use;
  if ((int64_t)c->size > b->stats.largest_alloc_size) b->stats.largest_alloc_size = (int64_t)c->size;
  b->stats.n_allocs++;
  pthread_mutex_unlock(&b->mu);
  return c->ptr;

oom:
  set_oom(b, n, detail, s);
  free(detail);
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

/* Unlinks next (free, c's successor) and folds it into c. */
static void absorb_next(bfc_chunk *c) {
  bfc_chunk *next = c->next;
  c->size += next->size;
  c->next = next->next;
  if (next->next) next->next->prev = c;
  free(next);
}

void tfc_bfc_release(tfc_bfc *b, void *p) {
  if (!b || !p) return;
  pthread_mutex_lock(&b->mu);
  bfc_chunk *c = map_get(b, p);
  /* An unknown or already released pointer is the caller's bug; ignoring it keeps the arena
   * intact, where freeing would corrupt it. */
  if (!c) {
    pthread_mutex_unlock(&b->mu);
    return;
  }
  map_remove(b, p);
  c->in_use = 0;
  b->stats.bytes_in_use -= (int64_t)c->size;

  /* Coalesce with free neighbours; the region's list only links chunks of the same region. */
  if (c->next && !c->next->in_use) {
    bin_remove(b, c->next);
    absorb_next(c);
  }
  if (c->prev && !c->prev->in_use) {
    bfc_chunk *prev = c->prev;
    bin_remove(b, prev);
    absorb_next(prev);
    c = prev;
  }
  bin_insert(b, c);
  pthread_mutex_unlock(&b->mu);
}

size_t tfc_bfc_size(tfc_bfc *b, const void *p) {
  if (!b || !p) return 0;
  pthread_mutex_lock(&b->mu);
  const bfc_chunk *c = map_get(b, p);
  size_t size = c ? c->size : 0;
  pthread_mutex_unlock(&b->mu);
  return size;
}

tfc_bfc_stats tfc_bfc_get_stats(tfc_bfc *b) {
  tfc_bfc_stats st = {0};
  if (!b) return st;
  pthread_mutex_lock(&b->mu);
  st = b->stats;
  pthread_mutex_unlock(&b->mu);
  return st;
}

void tfc_bfc_describe(tfc_bfc *b, tfc_strbuf *out) {
  if (!b || !out) return;
  pthread_mutex_lock(&b->mu);
  int64_t used_chunks[BFC_N_BINS] = {0}, used_bytes[BFC_N_BINS] = {0};
  int64_t free_bytes[BFC_N_BINS] = {0};
  tfc_strbuf_printf(out, "%s: %zu regions, %lld reserved of %lld limit, %lld in use in %zu chunks\n",
                    b->name, b->n_regions, (long long)b->stats.bytes_reserved, (long long)b->limit,
                    (long long)b->stats.bytes_in_use, b->n_live);
  for (size_t r = 0; r < b->n_regions; r++) {
    long long n_chunks = 0, n_used = 0, bytes_used = 0;
    for (const bfc_chunk *c = b->regions[r].first; c; c = c->next) {
      int bin = bin_for_size(c->size);
      n_chunks++;
      if (c->in_use) {
        n_used++;
        bytes_used += (long long)c->size;
        used_chunks[bin]++;
        used_bytes[bin] += (int64_t)c->size;
      } else {
        free_bytes[bin] += (int64_t)c->size;
      }
    }
    tfc_strbuf_printf(out, "region %zu at %p: %zu bytes, %lld chunks, %lld in use (%lld bytes)\n", r,
                      (void *)b->regions[r].base, b->regions[r].size, n_chunks, n_used, bytes_used);
  }
  for (int bin = 0; bin < BFC_N_BINS; bin++) {
    if (!used_chunks[bin] && !b->bin_free_count[bin]) continue;
    char range[64];
    if (bin == BFC_N_BINS - 1)
      snprintf(range, sizeof range, "%zu and up", BFC_MIN_SIZE << bin);
    else
      snprintf(range, sizeof range, "%zu to %zu", BFC_MIN_SIZE << bin, (BFC_MIN_SIZE << (bin + 1)) - 1);
    tfc_strbuf_printf(out, "bin %d (%s bytes): %lld in use (%lld bytes), %lld free (%lld bytes)\n", bin, range,
                      (long long)used_chunks[bin], (long long)used_bytes[bin],
                      (long long)b->bin_free_count[bin], (long long)free_bytes[bin]);
  }
  tfc_strbuf_printf(out, "largest free chunk %zu\n", largest_free(b));
  pthread_mutex_unlock(&b->mu);
}
