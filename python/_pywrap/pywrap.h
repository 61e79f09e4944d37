/* tfc._pywrap: the one CPython extension under the tfc package.
 *
 * Design: a thin layer over libtfc's TF C API (include/tensorflow/c/c_api.h). The Python package
 * (python/tfc/) keeps the API objects (Graph, Operation, Tensor, Session); this module holds
 * only what must be C: the TF_Graph/TF_Session handles, op construction, shape queries, the
 * numpy <-> TF_Tensor conversions and TF_SessionRun with the GIL released.
 *
 * - Graph (graph.c) owns a TF_Graph. Operations are passed to and from Python as integers (the
 *   TF_Operation address); they live as long as their graph, which the Python Operation keeps
 *   alive. These integers never reach user code.
 * - Session and Runner (session.c): a Runner is a prepared (feeds, fetches, targets) triple of
 *   TF_Outputs; calling it with a tuple of feed values runs the session once.
 * - ndarray.c converts numpy arrays to TF_Tensors (numeric arrays aligned for the runtime are
 *   lent, not copied; the array is released when the runtime lets go) and TF_Tensors to numpy
 *   (the array wraps the tensor's memory when the runtime gives it up, else a copy).
 * - script.c is the script callback of PyFunc / PyFuncStateless: it takes the GIL on the
 *   session's threads and calls the Python dispatcher of tfc/ops/script_ops.py.
 * - oplist.c reads the serialized OpList of TF_GetAllOpList into plain Python data.
 * - monitored_session.c makes monitored Sessions (TFC_MonitoredSession; see PyTFSession) and
 *   calls back into Python (the GIL taken) after each session creation and before each close.
 * - sync_replicas.c wraps TFC_SyncReplicasOptimizer, and hands its session hook to
 *   monitored_session.c as a capsule;
 * - device_setter.c wraps TFC_ReplicaDeviceSetter; train.c's Scope can carry a Python device
 *   function, which the builders call back (GIL held) for each node they make.
 * - Errors: a non-OK TF_Status raises the class registered for its code by tfc.errors
 *   (set_error_classes), constructed as cls(None, None, message); bad arguments raise
 *   TypeError/ValueError. Nothing here aborts the interpreter on bad input.
 */
#ifndef TFC_PYWRAP_H
#define TFC_PYWRAP_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL tfc_pywrap_ARRAY_API
#ifndef TFC_PYWRAP_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "tensorflow/c/c_api.h"
#include "tfc/train.h"

typedef struct {
  PyObject_HEAD
  TF_Graph *graph;
} PyTFGraph;

/* A _pywrap.Session (session.c). Three kinds share the type, so Runners and every function
 * taking a session (pywrap_session) serve them all:
 * - owned: TF_NewSession's session, closed by close() and deleted with the object;
 * - borrowed: a monitored session's current TF_Session (what its hooks and _tf_sess() see),
 *   never closed or deleted here; the Python owner marks it closed (close()) before the
 *   monitored session replaces or closes that session;
 * - monitored (monitored_session.c): `session` is NULL and `monitored` the
 *   TFC_MonitoredSession; runs go through TFC_MonitoredSessionRun, pywrap_session gives its
 *   current raw session, close() is TFC_MonitoredSessionClose (raising its error). */
struct TFC_MonitoredSession;
typedef struct {
  PyObject_HEAD
  TF_Session *session;
  PyObject *graph;
  int closed;
  int borrowed;
  struct TFC_MonitoredSession *monitored;
  PyObject *callbacks; /* monitored: (on_create, on_end, on_closing), or NULL */
  PyObject *c_hooks;   /* monitored: the hook capsules its C session runs (kept alive), or NULL */
} PyTFSession;

extern PyTypeObject PyTFGraph_Type;
extern PyTypeObject PyTFSession_Type;
extern PyTypeObject PyTFRunner_Type;
extern PyTypeObject PyTFTensorOwner_Type;
extern PyTypeObject PyTFScope_Type;     /* train.c */
extern PyTypeObject PyTFOptimizer_Type; /* train.c */
extern PyTypeObject PyTFHandle_Type; /* io.c */
extern PyTypeObject PyTFSaver_Type;  /* saver.c */
extern PyTypeObject PyTFReader_Type; /* saver.c */
extern PyTypeObject PyTFReplicaDeviceSetter_Type; /* device_setter.c */
extern PyTypeObject PyTFSyncReplicas_Type;         /* sync_replicas.c */

/* Raises the registered class for a non-OK status and returns 1 (an exception already set by a
 * Python callback of the failed call is kept instead); returns 0 when OK. */
int pywrap_raise_status(TF_Status *s);
/* Raises the registered class for code with message msg; returns NULL. */
PyObject *pywrap_raise_code(int code, const char *msg);

/* Reads a Python int holding a TF_Operation address (graph.c's encoding). NULL + exception on
 * a non-int or 0. */
TF_Operation *pywrap_op(PyObject *o);
/* Reads (op, index) into *out; 0 on success, -1 with an exception set. */
int pywrap_output(PyObject *o, TF_Output *out);

/* train.c: the TFC_Scope of a _pywrap.Scope (borrowed: the Scope owns it); NULL + TypeError
 * for another object. */
struct TFC_Scope;
const struct TFC_Scope *pywrap_scope(PyObject *o);

/* train.c's conversions, shared with sync_replicas.c. A variable is the triple (variable op,
 * initializer op, (read op, 0)): pywrap_variable_obj returns a new one, pywrap_variable_arg
 * reads one (0, or -1 with an exception). pywrap_outputs_arg / pywrap_variables_arg read a
 * sequence into a malloc'd array the caller frees (*n its length; with allow_none, None items
 * are {NULL, 0}); NULL with an exception. pywrap_optimizer is a _pywrap.Optimizer's
 * TFC_Optimizer (borrowed: the object owns it), NULL + TypeError for another object. */
PyObject *pywrap_variable_obj(TFC_Variable v);
int pywrap_variable_arg(PyObject *o, TFC_Variable *v);
TF_Output *pywrap_outputs_arg(PyObject *o, Py_ssize_t *n, int allow_none);
TFC_Variable *pywrap_variables_arg(PyObject *o, Py_ssize_t *n);
TFC_Optimizer *pywrap_optimizer(PyObject *o);

/* The C hooks Python objects hand to a monitored session: a PyCapsule named
 * PYWRAP_HOOK_CAPSULE over a TFC_SessionRunHook that stays valid while the capsule lives
 * (sync_replicas.c makes them; monitored_session.c takes them). */
#define PYWRAP_HOOK_CAPSULE "tfc._pywrap.SessionRunHook"

/* session.c: the TF_Session of a _pywrap.Session; NULL + exception for another object or a
 * closed session. */
TF_Session *pywrap_session(PyObject *o);

/* monitored_session.c: close() and dealloc of a monitored session (the GIL held; released
 * around the C calls). close returns None or NULL with the hooks' or the final save's error. */
PyObject *pywrap_monitored_close(PyTFSession *self);
void pywrap_monitored_delete(PyTFSession *self);
/* monitored_session.c: one TFC_MonitoredSessionRun (the GIL released inside). */
void pywrap_monitored_run(PyTFSession *self, const TF_Buffer *opts, const TF_Output *feeds, TF_Tensor *const *in,
                          int nfeeds, const TF_Output *fetches, TF_Tensor **out, int nfetches,
                          const TF_Operation *const *targets, int ntargets, TF_Buffer *meta, TF_Status *s);
/* io.c: a "coordinator" Handle over a coordinator it does not own (closing it frees nothing). */
struct TFC_Coordinator;
PyObject *pywrap_borrowed_coordinator(struct TFC_Coordinator *c);

/* The numpy dtype number for a TF_DataType (NPY_OBJECT for strings); -1 when there is none. */
int pywrap_npy_type(TF_DataType dt);
/* ndarray.c: a new TF_Tensor holding arr's values as dtype dt (arr is converted to dt's numpy
 * type first). NULL with an exception set on failure. The caller owns the tensor. */
TF_Tensor *pywrap_tensor_from_ndarray(PyObject *value, TF_DataType dt);
/* ndarray.c: a new ndarray (or numpy scalar for rank 0) for t; takes ownership of t in all
 * cases. NULL with an exception set on failure. */
PyObject *pywrap_ndarray_from_tensor(TF_Tensor *t);
/* Releases arrays lent to the runtime whose tensors were freed off the GIL. Needs the GIL. */
void pywrap_drain_released(void);

/* interrupt.c: Ctrl-C during runs on the main thread. init at import; begin before a run
 * (the GIL held) returns the manager for TFC_SessionRunWithCancellation, or NULL when the run
 * is not to be interruptible; end after it (the GIL held) returns 1 when SIGINT arrived. */
struct TFC_CancellationManager;
int pywrap_interrupt_init(void);
struct TFC_CancellationManager *pywrap_interrupt_begin(void);
int pywrap_interrupt_end(struct TFC_CancellationManager *m);

/* train.c: pywrap_scope_wrap takes ownership of sc (NULL: MemoryError) and returns a new
 * Scope of graph (a _pywrap.Graph); pywrap_scope_graph is a Scope's graph (borrowed; o must be
 * a Scope pywrap_scope accepted). */
PyObject *pywrap_scope_wrap(PyObject *graph, struct TFC_Scope *sc);
PyObject *pywrap_scope_graph(PyObject *o);

/* Module functions defined in the other files. */
extern PyMethodDef pywrap_graph_methods[];
extern PyMethodDef pywrap_oplist_methods[];
extern PyMethodDef pywrap_ndarray_methods[];
extern PyMethodDef pywrap_cf_methods[]; /* control_flow.c */
extern PyMethodDef pywrap_train_methods[];
extern PyMethodDef pywrap_io_methods[];
extern PyMethodDef pywrap_saver_methods[]; /* saver.c */
extern PyMethodDef pywrap_script_methods[]; /* script.c: PyFunc's callback */
extern PyMethodDef pywrap_device_setter_methods[]; /* device_setter.c */
extern PyMethodDef pywrap_monitored_methods[]; /* monitored_session.c */

#endif
