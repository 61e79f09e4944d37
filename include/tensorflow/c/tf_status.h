/*
 * tf_status.h — status codes and the status object every fallible C API call fills.
 *
 * A TF_Status is created by the caller, passed last to fallible calls, and inspected with
 * TF_GetCode / TF_Message. Every call taking a TF_Status clears it on success and sets a
 * code and message on failure. Not thread-safe: use one status per thread.
 */
#ifndef TENSORFLOW_C_TF_STATUS_H_
#define TENSORFLOW_C_TF_STATUS_H_

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Status TF_Status;

/* Error codes; the values equal tensorflow/core/lib/core/error_codes.proto. */
typedef enum TF_Code {
  TF_OK = 0,
  TF_CANCELLED = 1,
  TF_UNKNOWN = 2,
  TF_INVALID_ARGUMENT = 3,
  TF_DEADLINE_EXCEEDED = 4,
  TF_NOT_FOUND = 5,
  TF_ALREADY_EXISTS = 6,
  TF_PERMISSION_DENIED = 7,
  TF_UNAUTHENTICATED = 16,
  TF_RESOURCE_EXHAUSTED = 8,
  TF_FAILED_PRECONDITION = 9,
  TF_ABORTED = 10,
  TF_OUT_OF_RANGE = 11,
  TF_UNIMPLEMENTED = 12,
  TF_INTERNAL = 13,
  TF_UNAVAILABLE = 14,
  TF_DATA_LOSS = 15,
} TF_Code;

/* A new status holding TF_OK; the caller owns it and frees it with TF_DeleteStatus. */
TF_CAPI_EXPORT extern TF_Status* TF_NewStatus(void);

/* Frees a status; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteStatus(TF_Status*);

/* Records code and a copy of msg (NULL is treated as ""). TF_OK clears the status; the
 * message is then ignored. */
TF_CAPI_EXPORT extern void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg);

/* The code held by s. */
TF_CAPI_EXPORT extern TF_Code TF_GetCode(const TF_Status* s);

/* The message held by s: "" when the code is TF_OK. Owned by s; valid until s is next
 * modified or deleted. */
TF_CAPI_EXPORT extern const char* TF_Message(const TF_Status* s);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_STATUS_H_ */
