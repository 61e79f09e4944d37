/* hashmap — see hashmap.h. FNV-1a hashing; grows at 50% load so probes stay short.
 * No deletion: every owner only ever adds names (graphs are append-only). */
#include "base/hashmap.h"

#include <stdlib.h>
#include <string.h>

void tfc_hashmap_init(tfc_hashmap *m) { memset(m, 0, sizeof *m); }

void tfc_hashmap_fini(tfc_hashmap *m) {
  for (size_t i = 0; i < m->cap; i++) free(m->slots[i].key);
  free(m->slots);
  memset(m, 0, sizeof *m);
}

uint64_t tfc_hash_bytes(const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
  return h;
}

static tfc_hashmap_entry *find(const tfc_hashmap *m, const char *key, size_t n, uint64_t h) {
  size_t mask = m->cap - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    tfc_hashmap_entry *e = &m->slots[i];
    if (!e->key) return e;
    if (e->hash == h && e->key_len == n && memcmp(e->key, key, n) == 0) return e;
  }
}

void *tfc_hashmap_get_n(const tfc_hashmap *m, const char *key, size_t n) {
  if (!m->cap) return NULL;
  tfc_hashmap_entry *e = find(m, key, n, tfc_hash_bytes(key, n));
  return e->key ? e->value : NULL;
}

void *tfc_hashmap_get(const tfc_hashmap *m, const char *key) {
  return tfc_hashmap_get_n(m, key, strlen(key));
}

static int grow(tfc_hashmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 16;
  tfc_hashmap_entry *slots = calloc(cap, sizeof *slots);
  if (!slots) return -1;
  tfc_hashmap old = *m;
  m->slots = slots;
  m->cap = cap;
  for (size_t i = 0; i < old.cap; i++)
    if (old.slots[i].key) *find(m, old.slots[i].key, old.slots[i].key_len, old.slots[i].hash) = old.slots[i];
  free(old.slots);
  return 0;
}

int tfc_hashmap_put_n(tfc_hashmap *m, const char *key, size_t n, void *value) {
  if ((m->count + 1) * 2 > m->cap && grow(m) != 0) return -1;
  uint64_t h = tfc_hash_bytes(key, n);
  tfc_hashmap_entry *e = find(m, key, n, h);
  if (e->key) { e->value = value; return 0; }
  char *k = malloc(n + 1);
  if (!k) return -1;
  memcpy(k, key, n);
  k[n] = '\0';
  e->key = k;
  e->key_len = n;
  e->hash = h;
  e->value = value;
  m->count++;
  return 0;
}

int tfc_hashmap_put(tfc_hashmap *m, const char *key, void *value) {
  return tfc_hashmap_put_n(m, key, strlen(key), value);
}
