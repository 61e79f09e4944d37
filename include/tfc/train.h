/*
 * train.h — tfc's graph builders for training from C: name scopes, variables, initializers,
 * gradients, optimizers, learning-rate decay, moving averages and regularizers.
 *
 * Each builder adds the nodes TensorFlow 1.x's Python adds for the same call, with the same
 * names, attrs and structure (`w1`, `w1/Assign`, `w1/read`, `truncated_normal/mul`,
 * `gradients/MatMul_grad/tuple/control_dependency_1`, `Adam/update_w1/ApplyAdam`, `beta1_power`,
 * ...), so a graph built here lines up node for node with one built by TF's Python: checkpoints,
 * feeds, fetches and tools that name nodes work on both. The graphs use TF 1.x reference
 * variables (VariableV2, Assign, <var>/read, Apply*).
 *
 * Scopes. A TFC_Scope is where builders put nodes: a graph, a name scope ("tower_0/conv1"), a
 * device request and control dependencies — Python's `with tf.name_scope(...)`,
 * `with tf.device(...)` and `with tf.control_dependencies(...)` as values. Scope names are made
 * unique as Python makes them ("gradients", then "gradients_1"). A scope is immutable; the
 * derived-scope functions return new scopes the caller deletes. Nodes added with plain
 * TF_NewOperation take part in the uniquing too (their names are in use).
 *
 * Ownership: scopes and optimizers are the caller's (TFC_Delete*); TF_Operation and TF_Output
 * values belong to the graph. Every function taking a TF_Status reports errors there (TF's codes
 * and messages) and then leaves the graph as it was: no node, no used name, no collection entry
 * (and no optimizer slot) survives a failed call; on failure the returned handles are NULL.
 * The status may be NULL (errors then only show as NULL results). Thread-safety: builders for
 * one graph from one thread at a time, and no other writer (TF_FinishOperation, imports) on that
 * graph while a gradient-building call (TFC_Gradients, TFC_ComputeGradients, TFC_Minimize) runs:
 * those release the graph lock around the gradient walk.
 *
 * Where tfc differs from TF 1.x's Python (each documented at its function): random op seeds
 * follow TF 1.15 (not TF 2.x's compat.v1 counter); a moving average's shadow starts from the
 * variable's initial value without Python's cond; gradient nodes take the scope's device but not
 * its control dependencies.
 */
#ifndef TFC_TRAIN_H_
#define TFC_TRAIN_H_

#include <stdint.h>

#include "tensorflow/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- scopes */

typedef struct TFC_Scope TFC_Scope;

/* The root scope of `graph` (borrowed; must outlive the scope): no name prefix, no device.
 * Every scope constructor returns NULL when out of memory or given NULL arguments. */
TF_CAPI_EXPORT extern TFC_Scope* TFC_NewRootScope(TF_Graph* graph);
/* A name scope below `scope`: "<scope>/<name>", made unique ("name_1", ...) as Python does
 * (names are compared case-insensitively, as Python's _names_in_use). Opening it takes the name
 * even if no node is ever put there. A name ending in '/' re-enters that scope verbatim
 * ("tower_0/" -> "tower_0"), as tf.name_scope does with a scope string. */
TF_CAPI_EXPORT extern TFC_Scope* TFC_NewSubScope(const TFC_Scope* scope, const char* name);
/* The same scope with a device request (tf.device): "/cpu:0", "/job:ps/task:0". The request
 * merges onto the scope's device (its fields win) and is kept canonical ("/device:CPU:0");
 * NULL or "" clears the device (tf.device(None)). A malformed request is kept as written and
 * fails the first node built with it. */
TF_CAPI_EXPORT extern TFC_Scope* TFC_ScopeWithDevice(const TFC_Scope* scope, const char* device);
/* A device function, Python's `tf.device(fn)`: called for each operation made under a scope
 * that has it, with the op's type and full name, the device requested so far (what the string
 * requests inside it and the device functions inside it gave, canonical, "" for none) and the
 * operation itself when it exists already (builder-made nodes are passed finished, as TF calls
 * device functions on the new Operation; TFC_ScopeNewOperation passes NULL). It returns the
 * op's device as a new buffer (TF_NewBufferFromString; the caller deletes it), or NULL for no
 * device. An error set in `status` fails the builder call (rolled back as usual). It runs while
 * the builder holds the graph's lock: it may read `op` (TF_OperationName, TF_OperationOpType,
 * TF_OperationNumOutputs, TF_OperationOutputType, TF_OperationGetAttr*) but must not call the
 * TF_Graph* functions or builders of that graph. */
typedef TF_Buffer* (*TFC_DeviceFunction)(void* ctx, const char* op_type, const char* op_name,
                                         const char* device, TF_Operation* op, TF_Status* status);
/* The same scope with device function `fn` (ctx borrowed: it must outlive the scope and every
 * scope derived from it) pushed on its device stack. As in Python the innermost entry acts
 * first: string requests made inside (TFC_ScopeWithDevice) merge into what the function sees,
 * its result replaces the op's device, and requests made outside it merge under the result (its
 * fields win). TFC_ScopeWithDevice(scope, NULL or "") clears strings and functions alike.
 * Colocated nodes (a variable's Assign and read, slots) take their target's device and do not
 * call device functions, as Python's colocate_with resets the device stack; neither does a
 * variable's initializer-function value (Python's device(None)). NULL for a NULL scope or fn
 * or when out of memory. */
TF_CAPI_EXPORT extern TFC_Scope* TFC_ScopeWithDeviceFunction(const TFC_Scope* scope, TFC_DeviceFunction fn,
                                                             void* ctx);
/* The same scope whose new operations also wait for `ops` (tf.control_dependencies; ops
 * borrowed from the graph). Nested calls accumulate. As in Python, a builder-made node skips
 * the ops it already takes as data inputs, and a frame's ops altogether when one of its inputs
 * was made under that frame; TFC_ScopeNewOperation adds all of them. Variables and slots
 * ignore control dependencies (Python builds them under init_scope). */
TF_CAPI_EXPORT extern TFC_Scope* TFC_ScopeWithControlDependencies(const TFC_Scope* scope,
                                                                  TF_Operation* const* ops, int n);
/* What nested tf.device strings give: `inner` merged onto `outer` (inner's fields win, unset
 * ones come from outer), printed canonically ("/gpu:1" -> "/device:GPU:1"; "" for none), as
 * TFC_ScopeWithDevice merges. NULL is "". The bytes go to `output` (no NUL). INVALID_ARGUMENT
 * "Malformed device specification '<spec>'" when either is malformed. */
TF_CAPI_EXPORT extern void TFC_MergeDeviceSpec(const char* outer, const char* inner,
                                               TF_Buffer* output, TF_Status* status);
/* The same scope whose builder calls open their own name scope as `name` (made unique as
 * usual) instead of their default ("gradients", "truncated_normal" / "random_normal" /
 * "random_uniform", "ExponentialDecay", "l2_regularizer"): Python's name= argument of those
 * functions. Scopes derived from it do not keep the name. NULL for a NULL or empty name. */
TF_CAPI_EXPORT extern TFC_Scope* TFC_ScopeWithBuilderName(const TFC_Scope* scope, const char* name);
TF_CAPI_EXPORT extern void TFC_DeleteScope(TFC_Scope* scope); /* NULL: no-op */
TF_CAPI_EXPORT extern TF_Graph* TFC_ScopeGraph(const TFC_Scope* scope);
/* "tower_0/conv1", or "" for the root. Owned by the scope. */
TF_CAPI_EXPORT extern const char* TFC_ScopeName(const TFC_Scope* scope);
/* TF Python's Graph.unique_name over the graph's names in use, the table the builders use
 * (op names and name scopes share it; compared lower-cased; ops added with plain
 * TF_NewOperation count, with every '/'-separated prefix of their names, unless their name was
 * taken here first): `name` (a full name, "scope/base") when free, else the first free
 * "<name>_<k>". With mark_as_used the result is taken. The name's bytes go to `output` (no
 * terminating NUL; freed with the buffer). INVALID_ARGUMENT for a NULL graph or output or an
 * empty name. This is how a client keeping its own name scopes (the Python package) shares
 * one naming with the builders. */
TF_CAPI_EXPORT extern void TFC_GraphUniqueName(TF_Graph* graph, const char* name,
                                               unsigned char mark_as_used, TF_Buffer* output,
                                               TF_Status* status);
/* Starts an operation of `op_type` named "<scope>/<name>" (name NULL: the op type), unique in
 * the graph, with the scope's device and control dependencies. Finish it with
 * TF_FinishOperation as usual (the name stays taken even if it is never finished). The scope's
 * device functions are called now, with no operation yet. NULL when out of memory or when a
 * device function fails (this call has no status: the name is then not taken). */
TF_CAPI_EXPORT extern TF_OperationDescription* TFC_ScopeNewOperation(const TFC_Scope* scope,
                                                                    const char* op_type,
                                                                    const char* name);

/* tf.set_random_seed: random initializers made by these builders afterwards get seeds
 * (seed, op seed) as TF 1.15's Python derives them: with seed 0 passed to the builder, op seed =
 * the number of operations in the graph at that point (TF 1.15's graph._last_id); both taken
 * mod 2^31-1. TF 2.x's compat.v1 numbers seeded ops 0, 1, ... instead, so graphs made by TF 2.x
 * differ from these in seed2 only. Without a graph seed, a nonzero op seed pairs with TF's
 * DEFAULT_GRAPH_SEED 87654321, and seed 0 gives (0, 0): nondeterministic. */
TF_CAPI_EXPORT extern void TFC_SetRandomSeed(TF_Graph* graph, int64_t seed);

/* ---------------------------------------------------------------- collections */
/* Graph collections, as tf.add_to_collection / tf.get_collection: named lists whose entries
 * are tuples of operations (borrowed from the graph). The builders use "summaries" (one
 * summary op per entry) and "queue_runners" (the queue, its close op, its cancel op, then its
 * enqueue ops). Adding: INVALID_ARGUMENT for an empty name, no operation, or an operation of
 * another graph. TFC_CollectionEntry copies up to `max` operations of entry `index` (in the
 * order added) into ops and returns how many the entry has (0: no such entry). */
TF_CAPI_EXPORT extern void TFC_AddToCollection(TF_Graph* graph, const char* name,
                                              TF_Operation* const* ops, int num_ops,
                                              TF_Status* status);
TF_CAPI_EXPORT extern int TFC_CollectionSize(TF_Graph* graph, const char* name);
TF_CAPI_EXPORT extern int TFC_CollectionEntry(TF_Graph* graph, const char* name, int index,
                                             TF_Operation** ops, int max);

/* ---------------------------------------------------------------- initializers */

/* A scalar Const of `dtype` (float, double, int32, int64) named "<scope>/<name>" (name NULL:
 * "Const"). INVALID_ARGUMENT for another dtype. Outputs of failed calls have oper NULL. */
TF_CAPI_EXPORT extern TF_Output TFC_ScalarConst(const TFC_Scope* scope, const char* name,
                                               TF_DataType dtype, double value, TF_Status* status);
/* tf.zeros(shape, dtype): a Const "zeros" below 1000 elements, else Fill "zeros" of
 * "zeros/shape_as_tensor" and "zeros/Const", as array_ops.zeros does. Dims must be >= 0. */
TF_CAPI_EXPORT extern TF_Output TFC_Zeros(const TFC_Scope* scope, const int64_t* dims, int num_dims,
                                         TF_DataType dtype, TF_Status* status);
/* tf.truncated_normal / tf.random_normal / tf.random_uniform (name scopes "truncated_normal",
 * "random_normal", "random_uniform"; nodes shape, mean/stddev or min/max, the random op, [sub,]
 * mul, and the AddV2 named after the scope). dtype float or double. seed 0: derived from the
 * graph seed (TFC_SetRandomSeed). */
TF_CAPI_EXPORT extern TF_Output TFC_TruncatedNormal(const TFC_Scope* scope, const int64_t* dims,
                                                   int num_dims, double mean, double stddev,
                                                   TF_DataType dtype, int64_t seed, TF_Status* status);
TF_CAPI_EXPORT extern TF_Output TFC_RandomNormal(const TFC_Scope* scope, const int64_t* dims,
                                                int num_dims, double mean, double stddev,
                                                TF_DataType dtype, int64_t seed, TF_Status* status);
TF_CAPI_EXPORT extern TF_Output TFC_RandomUniform(const TFC_Scope* scope, const int64_t* dims,
                                                 int num_dims, double minval, double maxval,
                                                 TF_DataType dtype, int64_t seed, TF_Status* status);

/* ---------------------------------------------------------------- variables */

/* A TF 1.x reference variable as tf.Variable makes it. */
typedef struct TFC_Variable {
  TF_Operation* variable;    /* VariableV2 "<name>"; fetch it to read the value */
  TF_Operation* initializer; /* Assign "<name>/Assign" of the initial value */
  TF_Output value;           /* Identity "<name>/read" */
} TFC_Variable;

/* tf.Variable(initial_value, name=name, trainable=trainable): the shape and dtype are the
 * initial value's; its shape must be fully known, else INVALID_ARGUMENT "initial_value must
 * have a shape specified: Tensor(...)". name NULL: "Variable"; made unique like a scope. Added
 * to the graph's global variables, and to its trainable variables when `trainable`. */
TF_CAPI_EXPORT extern TFC_Variable TFC_NewVariable(const TFC_Scope* scope, const char* name,
                                                  TF_Output initial_value, unsigned char trainable,
                                                  TF_Status* status);
/* Bits of TFC_NewVariableWithFlags's and TFC_SetVariableCollections's flags. */
#define TFC_VARIABLE_EXACT_NAME 1 /* the name is used as is: the caller reserved it */
#define TFC_VARIABLE_GLOBAL 2     /* in the global variables ("variables") */
#define TFC_VARIABLE_TRAINABLE 4  /* in the trainable variables ("trainable_variables") */
#define TFC_VARIABLE_LOCAL 8      /* in the local variables ("local_variables") */
/* The VariableV2 carries _class [loc:@<itself>], as TF's variables initialized from a function
 * (tf.get_variable's) do: Python builds those under attr_scope(_class loc:@<var>). */
#define TFC_VARIABLE_SELF_COLOCATE 16
/* tf.Variable(..., collections=...) as a client keeping its own name scopes calls it: as
 * TFC_NewVariable, with the collections the variable joins given by the TFC_VARIABLE_GLOBAL /
 * TRAINABLE / LOCAL bits, and with TFC_VARIABLE_EXACT_NAME the variable named exactly
 * "<scope>/<name>" (the caller took that name from TFC_GraphUniqueName, e.g. as the name
 * scope its initial value was built in; it is not made unique again). An exact name must not
 * be empty (INVALID_ARGUMENT). */
TF_CAPI_EXPORT extern TFC_Variable TFC_NewVariableWithFlags(const TFC_Scope* scope, const char* name,
                                                           TF_Output initial_value, int flags,
                                                           TF_Status* status);
/* Sets which variable collections `var` is in (the TFC_VARIABLE_GLOBAL / TRAINABLE / LOCAL
 * bits of flags; other bits are ignored): tf.add_to_collection of a variable, or a variable the
 * builders did not make (an imported graph), which is then recorded last. The builders that
 * read the collections (TFC_Minimize, TFC_GlobalVariablesInitializer, savers) see the change.
 * INVALID_ARGUMENT when an operation of var is missing or of another graph. */
TF_CAPI_EXPORT extern void TFC_SetVariableCollections(TF_Graph* graph, const TFC_Variable* var, int flags,
                                                     TF_Status* status);
/* The graph's global / trainable variables in creation order: fills up to `max` and returns
 * how many there are. */
TF_CAPI_EXPORT extern int TFC_GlobalVariables(TF_Graph* graph, TFC_Variable* out, int max);
TF_CAPI_EXPORT extern int TFC_TrainableVariables(TF_Graph* graph, TFC_Variable* out, int max);
/* tf.variables_initializer(global variables, name): a NoOp (name NULL: "init") waiting for
 * every initializer; with variables on several devices, one NoOp per device first, as
 * control_flow_ops.group does. */
TF_CAPI_EXPORT extern TF_Operation* TFC_GlobalVariablesInitializer(const TFC_Scope* scope,
                                                                  const char* name,
                                                                  TF_Status* status);
/* tf.group(*ops, name=name) (control_flow_ops.group): a NoOp `name` (NULL: "group_deps")
 * under the scope waiting for ops (borrowed, of the scope's graph); ops on several devices get
 * one NoOp per device first, sorted by device. No ops: a plain NoOp. INVALID_ARGUMENT for an
 * operation of another graph. */
TF_CAPI_EXPORT extern TF_Operation* TFC_Group(const TFC_Scope* scope, TF_Operation* const* ops,
                                             int num_ops, const char* name, TF_Status* status);
/* tf.train.get_or_create_global_step(): the int64 scalar "global_step" (root name scope, the
 * scope's device, "global_step/Initializer/zeros"), not trainable. An existing one is returned:
 * made here before, or a VariableV2 named "global_step" (an imported graph). */
TF_CAPI_EXPORT extern TFC_Variable TFC_GetOrCreateGlobalStep(const TFC_Scope* scope,
                                                            TF_Status* status);

/* ---------------------------------------------------------------- gradients */

/* tf.gradients(ys, xs, grad_ys): d(sum ys)/d xs under the name scope "<scope>/gradients"
 * (unique), with Python's per-op scopes "<op>_grad/" and, when `tuples`, its tuple wrapping
 * ("<op>_grad/tuple/control_dependency"). grad_ys may be NULL (ones), as may its entries.
 * dxs[i] is {NULL, -1} when ys do not depend on xs[i] (Python's None). The gradient nodes get
 * the scope's device; unlike Python they do not get its control dependencies. Errors are the
 * gradient walk's (NOT_FOUND "No gradient defined for op: ..."). */
TF_CAPI_EXPORT extern void TFC_Gradients(const TFC_Scope* scope, const TF_Output* ys, int num_ys,
                                        const TF_Output* xs, int num_xs, const TF_Output* grad_ys,
                                        unsigned char tuples, TF_Output* dxs, TF_Status* status);

/* ---------------------------------------------------------------- optimizers */

typedef struct TFC_Optimizer TFC_Optimizer;

/* tf.train.GradientDescentOptimizer / MomentumOptimizer / AdamOptimizer with their Python
 * defaults' meaning; `name` NULL gives the Python default ("GradientDescent", "Momentum",
 * "Adam"). */
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewGradientDescentOptimizer(double learning_rate,
                                                                    const char* name);
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewMomentumOptimizer(double learning_rate, double momentum,
                                                             unsigned char use_nesterov,
                                                             const char* name);
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewAdamOptimizer(double learning_rate, double beta1,
                                                         double beta2, double epsilon,
                                                         const char* name);
/* tf.train.AdagradOptimizer(learning_rate, initial_accumulator_value) ("Adagrad"): slot
 * "<var>/Adagrad" from constant_initializer(initial_accumulator_value) ("<var>/Adagrad/
 * Initializer/Const"), updates ApplyAdagrad. tf.train.RMSPropOptimizer(learning_rate, decay,
 * momentum, epsilon, centered) ("RMSProp"): slots "<var>/RMSProp" (ones), with `centered`
 * "<var>/RMSProp_1" (zeros), then the momentum slot (zeros); constants "learning_rate",
 * "decay", "momentum", "epsilon"; updates ApplyRMSProp / ApplyCenteredRMSProp. The Python
 * constructors' argument checks (initial_accumulator_value > 0) are the caller's. */
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewAdagradOptimizer(double learning_rate,
                                                            double initial_accumulator_value,
                                                            const char* name);
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewRMSPropOptimizer(double learning_rate, double decay,
                                                            double momentum, double epsilon,
                                                            unsigned char centered, const char* name);
/* tf.train.AdadeltaOptimizer(learning_rate, rho, epsilon) ("Adadelta"): slots "<var>/Adadelta"
 * (accum) and "<var>/Adadelta_1" (accum_update), zeros; constants "lr", "rho", "epsilon";
 * updates ApplyAdadelta.
 * tf.train.FtrlOptimizer(learning_rate, learning_rate_power, initial_accumulator_value,
 * l1_regularization_strength, l2_regularization_strength,
 * l2_shrinkage_regularization_strength) ("Ftrl"): slots "<var>/Ftrl" (accum, from
 * constant_initializer(initial_accumulator_value)) and "<var>/Ftrl_1" (linear, zeros);
 * constants "learning_rate", "l1_regularization_strength", "l2_regularization_strength",
 * "l2_shrinkage_regularization_strength", "learning_rate_power"; updates ApplyFtrl, or
 * ApplyFtrlV2 when l2_shrinkage > 0.
 * tf.train.ProximalGradientDescentOptimizer(learning_rate, l1, l2) ("ProximalGradientDescent"):
 * no slot; constants "learning_rate", "l1_regularization_strength", "l2_regularization_strength";
 * updates ApplyProximalGradientDescent.
 * tf.train.ProximalAdagradOptimizer(learning_rate, initial_accumulator_value, l1, l2)
 * ("ProximalAdagrad"): slot "<var>/ProximalAdagrad" (accumulator, constant
 * initial_accumulator_value); the same constants; updates ApplyProximalAdagrad.
 * As for the others, the Python constructors' argument checks (signs) are the caller's. Where
 * TF 1.15's Python makes a slot's constant initial value in the caller's name scope ("Const"),
 * these name it "<slot>/Initializer/Const" as Adagrad's; the slots' names and values agree. */
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewAdadeltaOptimizer(double learning_rate, double rho,
                                                             double epsilon, const char* name);
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewFtrlOptimizer(double learning_rate,
                                                         double learning_rate_power,
                                                         double initial_accumulator_value,
                                                         double l1, double l2, double l2_shrinkage,
                                                         const char* name);
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewProximalGradientDescentOptimizer(double learning_rate,
                                                                            double l1, double l2,
                                                                            const char* name);
TF_CAPI_EXPORT extern TFC_Optimizer* TFC_NewProximalAdagradOptimizer(
    double learning_rate, double initial_accumulator_value, double l1, double l2, const char* name);
/* optimizer.get_slot(var, name): the slot variable `slot_name` ("momentum" for Momentum;
 * "m", "v" for Adam; "accumulator" for Adagrad and ProximalAdagrad; "rms", "momentum", "mg" for
 * RMSProp; "accum", "accum_update" for Adadelta; "accum", "linear" for Ftrl) that this
 * optimizer made for `variable` in `graph`: 1 and *out filled (out may be NULL), or 0 when there
 * is none (not made yet, another graph, or a name the optimizer does not have). */
TF_CAPI_EXPORT extern int TFC_OptimizerGetSlot(const TFC_Optimizer* opt, TF_Graph* graph,
                                              TF_Operation* variable, const char* slot_name,
                                              TFC_Variable* out);
/* Uses a tensor (a float scalar, e.g. TFC_ExponentialDecay's) as the learning rate. */
TF_CAPI_EXPORT extern void TFC_OptimizerSetLearningRate(TFC_Optimizer* opt, TF_Output learning_rate);
TF_CAPI_EXPORT extern void TFC_DeleteOptimizer(TFC_Optimizer* opt); /* NULL: no-op */

/* optimizer.compute_gradients(loss, var_list): grads[i] for vars[i] (all trainable variables
 * when num_vars is 0: then grads and vars must have room for them all, TFC_TrainableVariables
 * tells how many; none is INVALID_ARGUMENT "No variables to optimize."). The gradients carry
 * the optimizer's GATE_OP tuple wrapping. grads[i].oper NULL: loss does not depend on vars[i]. */
TF_CAPI_EXPORT extern void TFC_ComputeGradients(TFC_Optimizer* opt, const TFC_Scope* scope,
                                               TF_Output loss, TFC_Variable* vars, int num_vars,
                                               TF_Output* grads, TF_Status* status);
/* optimizer.apply_gradients(zip(grads, vars), global_step, name): slots, update ops, and the
 * train op (returned). Pairs whose grad oper is NULL are skipped; none left is
 * INVALID_ARGUMENT ("No gradients provided for any variable"). global_step may be NULL. */
TF_CAPI_EXPORT extern TF_Operation* TFC_ApplyGradients(TFC_Optimizer* opt, const TFC_Scope* scope,
                                                      const TF_Output* grads,
                                                      const TFC_Variable* vars, int num_vars,
                                                      const TFC_Variable* global_step,
                                                      const char* name, TF_Status* status);
/* optimizer.minimize(loss, global_step, name): compute_gradients over every trainable
 * variable, then apply_gradients (name NULL: the optimizer's name). Slots and Adam's
 * beta1_power/beta2_power are kept by the optimizer per graph and variable, so a second call on
 * the same variables reuses them. With global_step the train op is the AssignAdd `name` on it
 * (after the group "<name>/update"), as in Python. */
TF_CAPI_EXPORT extern TF_Operation* TFC_Minimize(TFC_Optimizer* opt, const TFC_Scope* scope,
                                                TF_Output loss, const TFC_Variable* global_step,
                                                const char* name, TF_Status* status);

/* ---------------------------------------------------------------- schedules, averages, losses */

/* tf.train.exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase):
 * lr * decay_rate ^ (global_step / decay_steps), floored when staircase. */
TF_CAPI_EXPORT extern TF_Output TFC_ExponentialDecay(const TFC_Scope* scope, double learning_rate,
                                                    TF_Output global_step, double decay_steps,
                                                    double decay_rate, unsigned char staircase,
                                                    TF_Status* status);
/* The other tf.train schedules, each under its Python name scope (or the scope's builder name)
 * with TF's node names; the step is any real scalar (cast to float), the numbers are Python's
 * (Python ints become float "Cast/x" constants here, where Python makes an int Const and a Cast):
 * - TFC_NaturalExpDecay: lr * exp(-decay_rate) ^ (step / decay_steps) ("Neg/x", "Neg", "Exp" in
 *   the caller's scope, then "ExponentialDecay" as TFC_ExponentialDecay builds it);
 * - TFC_PolynomialDecay ("PolynomialDecay"): (lr - end) * (1 - min(step, steps) / steps) ^
 *   power + end; with cycle, steps *= (step == 0 ? 1 : ceil(step / steps)) and no min;
 * - TFC_InverseTimeDecay ("InverseTimeDecay"): lr / (1 + rate * step / steps), floored when
 *   staircase;
 * - TFC_CosineDecay ("CosineDecay", result "CosineDecay/Mul_3" as in Python): lr * ((1 - alpha)
 *   * 0.5 * (1 + cos(pi * min(step, steps) / steps)) + alpha);
 * - TFC_CosineDecayRestarts ("SGDRDecay"): SGDR's warm restarts; Python chooses the restart
 *   arithmetic with a cond on t_mul == 1, here t_mul is a number and the branch's nodes go
 *   under "SGDRDecay/cond/" with no If/Switch;
 * - TFC_LinearCosineDecay ("LinearCosineDecay"): lr * ((alpha + linear) * cosine + beta).
 * Errors: those of TF_FinishOperation (a non-real step). Ownership as every builder. */
TF_CAPI_EXPORT extern TF_Output TFC_NaturalExpDecay(const TFC_Scope* scope, double learning_rate,
                                                   TF_Output global_step, double decay_steps,
                                                   double decay_rate, unsigned char staircase,
                                                   TF_Status* status);
TF_CAPI_EXPORT extern TF_Output TFC_PolynomialDecay(const TFC_Scope* scope, double learning_rate,
                                                   TF_Output global_step, double decay_steps,
                                                   double end_learning_rate, double power,
                                                   unsigned char cycle, TF_Status* status);
TF_CAPI_EXPORT extern TF_Output TFC_InverseTimeDecay(const TFC_Scope* scope, double learning_rate,
                                                    TF_Output global_step, double decay_steps,
                                                    double decay_rate, unsigned char staircase,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern TF_Output TFC_CosineDecay(const TFC_Scope* scope, double learning_rate,
                                               TF_Output global_step, double decay_steps,
                                               double alpha, TF_Status* status);
TF_CAPI_EXPORT extern TF_Output TFC_CosineDecayRestarts(const TFC_Scope* scope, double learning_rate,
                                                       TF_Output global_step,
                                                       double first_decay_steps, double t_mul,
                                                       double m_mul, double alpha, TF_Status* status);
TF_CAPI_EXPORT extern TF_Output TFC_LinearCosineDecay(const TFC_Scope* scope, double learning_rate,
                                                     TF_Output global_step, double decay_steps,
                                                     double num_periods, double alpha, double beta,
                                                     TF_Status* status);
/* tf.train.piecewise_constant(x, boundaries, values): values[0] while x <= boundaries[0],
 * values[i] while boundaries[i-1] < x <= boundaries[i], values[n] after. The boundaries take
 * x's type (float, double, int32, int64), the values value_dtype. Python builds a case of
 * conds; tfc builds it branch-free under "PiecewiseConstant": Consts "boundaries" and "values",
 * Greater, Cast, the Sum "index" (how many boundaries x exceeds) and the GatherV2
 * "PiecewiseConstant" (the result; Python's is "PiecewiseConstant/case/cond/Merge").
 * INVALID_ARGUMENT "The length of boundaries should be 1 less than the length of values" (also
 * for no boundary), and for another type of x or values. */
TF_CAPI_EXPORT extern TF_Output TFC_PiecewiseConstant(const TFC_Scope* scope, TF_Output x,
                                                     const double* boundaries, int num_boundaries,
                                                     const double* values, int num_values,
                                                     TF_DataType value_dtype, TF_Status* status);
/* tf.train.ExponentialMovingAverage(decay, num_updates).apply(vars): a shadow variable
 * "<var>/ExponentialMovingAverage" per variable (averages[i], may be NULL) and the update op
 * "ExponentialMovingAverage" (returned): shadow -= (shadow - var) * (1 - d), d = decay or, with
 * num_updates (e.g. the global step's value; NULL oper: none), min(decay, (1+n)/(10+n)).
 * Unlike Python, a shadow is initialized from its variable's initial value directly (Python's
 * initialized_value() wraps it in a cond that tfc's op table cannot express yet); the results
 * agree whenever the shadow is initialized with its variable (a global initializer). A reference
 * variable is read when its update runs (after the scope's control dependencies), not through
 * its "<var>/read" snapshot: under a train op's control dependency, the step's result. */
TF_CAPI_EXPORT extern TF_Operation* TFC_ExponentialMovingAverage(const TFC_Scope* scope, double decay,
                                                                TF_Output num_updates,
                                                                const TFC_Variable* vars, int num_vars,
                                                                TFC_Variable* averages,
                                                                TF_Status* status);
/* tf.contrib.layers.l2_regularizer(scale)(weights): scale * l2_loss(weights), named
 * "l2_regularizer" ("l2_regularizer/scale", "l2_regularizer/L2Loss"). Scale 0 disables it as in
 * Python: OK status, oper NULL, nothing added; scale < 0 is INVALID_ARGUMENT "Setting a scale
 * less than 0 on a regularizer: <scale>". */
TF_CAPI_EXPORT extern TF_Output TFC_L2Regularizer(const TFC_Scope* scope, double scale,
                                                 TF_Output weights, TF_Status* status);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TFC_TRAIN_H_ */
