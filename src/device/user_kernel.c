/* user_kernel — see user_kernel.h. */
#include "device/user_kernel.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_name.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static tfc_user_kernel **rows;
static int n_rows, cap_rows;

int tfc_user_kernel_add(tfc_user_kernel *k, tfc_status *s) {
  pthread_mutex_lock(&mu);
  int r = TFC_OK;
  if (n_rows == cap_rows) {
    int cap = cap_rows ? cap_rows * 2 : 16;
    tfc_user_kernel **n = realloc(rows, sizeof *n * (size_t)cap);
    if (!n) r = TFC_OOM(s);
    else rows = n, cap_rows = cap;
  }
  if (r == TFC_OK) rows[n_rows++] = k;
  pthread_mutex_unlock(&mu);
  return r;
}

static int satisfied(const tfc_user_kernel *k, const tfc_node *n) {
  for (int i = 0; i < k->n_constraints; i++) {
    int dt;
    if (tfc_node_attr_type(n, k->constraint_attrs[i], &dt) != 0 || dt != k->constraint_types[i]) return 0;
  }
  return 1;
}

const tfc_user_kernel *tfc_user_kernel_find(const char *device_type, const tfc_node *n, int *any) {
  const tfc_user_kernel *found = NULL;
  if (any) *any = 0;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < n_rows && !found; i++) {
    const tfc_user_kernel *k = rows[i];
    if (strcmp(k->op_name, n->op->name) != 0 || strcmp(k->device_type, device_type) != 0) continue;
    if (any) *any = 1;
    if (satisfied(k, n)) found = k;
  }
  pthread_mutex_unlock(&mu);
  return found;
}

const tfc_user_kernel *tfc_user_kernel_for_node(const tfc_node *n) {
  tfc_devname dn;
  const char *type = "CPU";
  if (n->assigned_device && tfc_devname_parse(n->assigned_device, &dn) == 0 && dn.has_type) type = dn.type;
  return tfc_user_kernel_find(type, n, NULL);
}

int tfc_user_kernel_count(void) {
  pthread_mutex_lock(&mu);
  int n = n_rows;
  pthread_mutex_unlock(&mu);
  return n;
}

const tfc_user_kernel *tfc_user_kernel_at(int i) {
  pthread_mutex_lock(&mu);
  const tfc_user_kernel *k = i >= 0 && i < n_rows ? rows[i] : NULL;
  pthread_mutex_unlock(&mu);
  return k;
}
