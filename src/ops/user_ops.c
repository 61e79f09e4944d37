/* user_ops — see user_ops.h. */
#include "ops/user_ops.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/hashmap.h"
#include "ops/opdef.h"

typedef struct user_op {
  tfc_opdef *def;
  void *shape_data;
} user_op;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static user_op *ops;
static int n_ops, cap_ops;
static tfc_hashmap by_name; /* name -> user_op index + 1 */
static int map_ready;

static user_op *find_locked(const char *name);

int tfc_user_op_register(tfc_opdef *op, void *shape_data, tfc_status *s) {
  TFC_TRY(tfc_ops_init(s));
  /* The table's names first: tfc_op_lookup would never reach a shadowing user op. */
  int taken = tfc_op_lookup(op->name) != NULL;
  pthread_mutex_lock(&mu);
  if (!map_ready) {
    tfc_hashmap_init(&by_name);
    map_ready = 1;
  }
  int r = TFC_OK;
  if (taken || find_locked(op->name)) {
    r = tfc_status_set(s, TFC_ALREADY_EXISTS, "Op with name %s", op->name);
  } else if (n_ops == cap_ops) {
    int cap = cap_ops ? cap_ops * 2 : 16;
    user_op *n = realloc(ops, sizeof *n * (size_t)cap);
    if (!n) r = TFC_OOM(s);
    else ops = n, cap_ops = cap;
  }
  if (r == TFC_OK && tfc_hashmap_put(&by_name, op->name, (void *)(intptr_t)(n_ops + 1)) != 0) r = TFC_OOM(s);
  if (r == TFC_OK) {
    op->id = TFC_OP_USER_BASE + n_ops;
    ops[n_ops].def = op;
    ops[n_ops].shape_data = shape_data;
    n_ops++;
  }
  pthread_mutex_unlock(&mu);
  return r;
}

static user_op *find_locked(const char *name) {
  if (!map_ready) return NULL;
  intptr_t i = (intptr_t)tfc_hashmap_get(&by_name, name);
  return i ? &ops[i - 1] : NULL;
}

const tfc_opdef *tfc_user_op_lookup(const char *name) {
  pthread_mutex_lock(&mu);
  user_op *u = find_locked(name);
  const tfc_opdef *op = u ? u->def : NULL;
  pthread_mutex_unlock(&mu);
  return op;
}

const tfc_opdef *tfc_user_op_by_id(int id) {
  pthread_mutex_lock(&mu);
  int i = id - TFC_OP_USER_BASE;
  const tfc_opdef *op = i >= 0 && i < n_ops ? ops[i].def : NULL;
  pthread_mutex_unlock(&mu);
  return op;
}

void *tfc_user_op_shape_data(const tfc_opdef *op) {
  if (!op || op->id < TFC_OP_USER_BASE) return NULL;
  pthread_mutex_lock(&mu);
  int i = op->id - TFC_OP_USER_BASE;
  void *d = i < n_ops && ops[i].def == op ? ops[i].shape_data : NULL;
  pthread_mutex_unlock(&mu);
  return d;
}

int tfc_user_op_count(void) {
  pthread_mutex_lock(&mu);
  int n = n_ops;
  pthread_mutex_unlock(&mu);
  return n;
}
