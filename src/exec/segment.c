/* segment — see segment.h. */
#include "exec/segment.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/hashmap.h"
#include "base/strbuf.h"

typedef struct seg_entry {
  void *state;
  const tfc_kernel_def *kernel;
} seg_entry;

struct tfc_kernel_segment {
  pthread_mutex_t mu;
  tfc_hashmap by_key; /* "<device>\n<node>" -> seg_entry */
};

tfc_kernel_segment *tfc_kernel_segment_new(void) {
  tfc_kernel_segment *seg = calloc(1, sizeof *seg);
  if (!seg) return NULL;
  pthread_mutex_init(&seg->mu, NULL);
  tfc_hashmap_init(&seg->by_key);
  return seg;
}

void tfc_kernel_segment_free(tfc_kernel_segment *seg) {
  if (!seg) return;
  for (size_t i = 0; i < seg->by_key.cap; i++) {
    seg_entry *e = seg->by_key.slots[i].key ? seg->by_key.slots[i].value : NULL;
    if (!e) continue;
    if (e->state && e->kernel->free_state) e->kernel->free_state(e->state);
    free(e);
  }
  tfc_hashmap_fini(&seg->by_key);
  pthread_mutex_destroy(&seg->mu);
  free(seg);
}

int tfc_kernel_segment_acquire(tfc_kernel_segment *seg, const char *device, const tfc_node *n,
                               const tfc_kernel_def *k, void **state, tfc_status *s) {
  *state = NULL;
  tfc_strbuf key;
  tfc_strbuf_init(&key);
  tfc_strbuf_puts(&key, device);
  tfc_strbuf_append(&key, "\n", 1);
  tfc_strbuf_puts(&key, n->name);
  if (!tfc_strbuf_ok(&key)) {
    tfc_strbuf_fini(&key);
    return TFC_OOM(s);
  }
  int rc = TFC_OK;
  pthread_mutex_lock(&seg->mu);
  seg_entry *e = tfc_hashmap_get(&seg->by_key, tfc_strbuf_str(&key));
  if (e && e->kernel == k) {
    *state = e->state;
  } else if (e) { /* the same name on the same device with another row: not the same node */
    rc = tfc_status_set(s, TFC_INTERNAL, "node '%s' on %s: two kernels for one shared state", n->name, device);
  } else if (!(e = calloc(1, sizeof *e))) {
    rc = TFC_OOM(s);
  } else if ((rc = k->init ? k->init(n, &e->state, s) : TFC_OK) != TFC_OK) {
    free(e);
  } else {
    e->kernel = k;
    if (tfc_hashmap_put(&seg->by_key, tfc_strbuf_str(&key), e) != 0) {
      if (e->state && k->free_state) k->free_state(e->state);
      free(e);
      rc = TFC_OOM(s);
    } else {
      *state = e->state;
    }
  }
  pthread_mutex_unlock(&seg->mu);
  tfc_strbuf_fini(&key);
  return rc;
}
