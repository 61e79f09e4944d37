/*
 * hashmap — string keys to pointer values, open addressing with linear probing.
 * Used for name lookups (nodes by name, ops by name, executors by run signature).
 * Keys are copied and owned by the map; values are borrowed (the map never frees them).
 * Not thread-safe: owners guard it with their own lock.
 */
#ifndef TFC_BASE_HASHMAP_H
#define TFC_BASE_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfc_hashmap_entry {
  char *key; /* NULL = empty slot */
  size_t key_len;
  uint64_t hash;
  void *value;
} tfc_hashmap_entry;

typedef struct tfc_hashmap {
  tfc_hashmap_entry *slots;
  size_t cap; /* power of two or 0 */
  size_t count;
} tfc_hashmap;

void tfc_hashmap_init(tfc_hashmap *m);
void tfc_hashmap_fini(tfc_hashmap *m);
uint64_t tfc_hash_bytes(const void *data, size_t n);
/* Lookup by bytes; NULL when absent. */
void *tfc_hashmap_get_n(const tfc_hashmap *m, const char *key, size_t n);
void *tfc_hashmap_get(const tfc_hashmap *m, const char *key);
/* Inserts or replaces. Returns 0, or -1 on out of memory (map unchanged). */
int tfc_hashmap_put_n(tfc_hashmap *m, const char *key, size_t n, void *value);
int tfc_hashmap_put(tfc_hashmap *m, const char *key, void *value);
/* Iteration: for (size_t i = 0; i < m->cap; i++) if (m->slots[i].key) ... */

#endif
