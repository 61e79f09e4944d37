/*
 * library — TF_LoadLibrary, TF_GetOpList, TF_DeleteLibraryHandle: libraries of user-defined
 * ops and kernels (include/tensorflow/c/ops.h, kernels.h).
 *
 * A library registers its ops and kernels from constructor functions (__attribute__
 * ((constructor)), TF's static-initializer pattern), which dlopen runs. TF_LoadLibrary holds
 * one process-wide lock around dlopen, so the ops registered meanwhile (ids from the
 * registry's count before to its count after: ops/user_ops.h) are the library's, and notes
 * registration errors made on the loading thread (tfc_capi_library_note_error); the first
 * fails the load. The library's OpList is serialized once and kept by file name: loading the
 * same file again (dlopen then runs no constructor) gives a handle with the same OpList, as
 * TF's loader caches loaded libraries. Libraries are never unloaded (their ops stay
 * registered and their kernels may run), so TF_DeleteLibraryHandle frees only the handle.
 *
 * Errors: a file dlopen cannot load is NOT_FOUND with dlerror()'s text (which names the
 * file), as TF's Env::LoadLibrary; a registration error is returned as registration gave it.
 * The library must find the TF_* functions in the process: link the program against libtfc's
 * shared library, or export them from a static link (-rdynamic).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/mem.h"
#include "capi/capi_internal.h"
#include "capi/library.h"
#include "ops/opdef.h"
#include "ops/user_ops.h"
#include "proto/graphdef.h"

struct TF_Library {
  void *handle;
  TF_Buffer op_list; /* data owned by the handle */
};

typedef struct loaded {
  void *data;
  size_t len;
} loaded;

static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;
static tfc_hashmap by_file; /* file name -> loaded, under load_mu */
static int by_file_ready;
static __thread tfc_status *load_errors; /* the load in progress on this thread */

void tfc_capi_library_note_error(const tfc_status *s) {
  if (load_errors && tfc_status_ok(load_errors)) tfc_status_set(load_errors, s->code, "%s", tfc_status_msg(s));
}

/* Serializes the OpList of user ops [from, to). */
static int op_list_of(int from, int to, loaded *out, tfc_status *s) {
  const tfc_opdef **ops = malloc(sizeof *ops * (size_t)(to - from + 1));
  if (!ops) return TFC_OOM(s);
  int n = 0;
  for (int i = from; i < to; i++) {
    const tfc_opdef *op = tfc_op_by_id(TFC_OP_USER_BASE + i);
    if (op) ops[n++] = op;
  }
  int r = tfc_oplist_export_ops(ops, n, &out->data, &out->len, s);
  free(ops);
  return r;
}

static void free_op_list(void *data, size_t len) {
  (void)len;
  free(data);
}

TFC_EXPORT TF_Library *TF_LoadLibrary(const char *library_filename, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!library_filename) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_LoadLibrary: library_filename is NULL");
    return NULL;
  }
  if (tfc_ops_init(s)) return NULL;
  TF_Library *lib = calloc(1, sizeof *lib);
  if (!lib) {
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_lock(&load_mu);
  if (!by_file_ready) {
    tfc_hashmap_init(&by_file);
    by_file_ready = 1;
  }
  loaded *known = tfc_hashmap_get(&by_file, library_filename);
  tfc_status errors;
  tfc_status_init(&errors);
  int before = tfc_user_op_count();
  load_errors = &errors;
  lib->handle = dlopen(library_filename, RTLD_NOW | RTLD_LOCAL);
  load_errors = NULL;
  if (!lib->handle) {
    const char *why = dlerror();
    tfc_status_set(s, TFC_NOT_FOUND, "%s", why ? why : library_filename);
  } else if (!tfc_status_ok(&errors)) {
    tfc_status_move(s, &errors);
  } else if (!known) {
    loaded *l = calloc(1, sizeof *l);
    if (!l) TFC_OOM(s);
    else if (op_list_of(before, tfc_user_op_count(), l, s) || tfc_hashmap_put(&by_file, library_filename, l) != 0) {
      if (tfc_status_ok(s)) TFC_OOM(s);
      free(l->data);
      free(l);
    } else {
      known = l;
    }
  }
  if (tfc_status_ok(s)) {
    void *copy = malloc(known->len ? known->len : 1);
    if (!copy) {
      TFC_OOM(s);
    } else {
      memcpy(copy, known->data, known->len);
      lib->op_list.data = copy;
      lib->op_list.length = known->len;
      lib->op_list.data_deallocator = free_op_list;
    }
  }
  pthread_mutex_unlock(&load_mu);
  tfc_status_fini(&errors);
  if (!tfc_status_ok(s)) {
    free(lib);
    return NULL;
  }
  return lib;
}

TFC_EXPORT TF_Buffer TF_GetOpList(TF_Library *lib_handle) {
  TF_Buffer none = {NULL, 0, NULL};
  return lib_handle ? lib_handle->op_list : none;
}

TFC_EXPORT void TF_DeleteLibraryHandle(TF_Library *lib_handle) {
  if (!lib_handle) return;
  free((void *)lib_handle->op_list.data);
  free(lib_handle);
}
