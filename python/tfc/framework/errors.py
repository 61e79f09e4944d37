"""tf.errors: OpError and its subclasses, one per TF status code.

The extension raises these for a non-OK TF_Status: register() hands it the code -> class table
(the way TF's PyExceptionRegistry does), and it constructs cls(None, None, message).
"""
from tfc import _pywrap

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = 10, 11, 12, 13, 14, 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failed TensorFlow operation: node_def, op, message, error_code."""

    def __init__(self, node_def, op, message, error_code):
        super(OpError, self).__init__()
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    def __reduce__(self):
        return type(self), (self._node_def, self._op, self._message, self._error_code)

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def error_code(self):
        return self._error_code

    @property
    def node_def(self):
        return self._node_def

    def __str__(self):
        return self._message


def _subclass(name, code):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    def __reduce__(self):
        return type(self), (self._node_def, self._op, self._message)

    return type(name, (OpError,), {"__init__": __init__, "__reduce__": __reduce__,
                                   "__module__": __name__})


CancelledError = _subclass("CancelledError", CANCELLED)
InvalidArgumentError = _subclass("InvalidArgumentError", INVALID_ARGUMENT)
DeadlineExceededError = _subclass("DeadlineExceededError", DEADLINE_EXCEEDED)
NotFoundError = _subclass("NotFoundError", NOT_FOUND)
AlreadyExistsError = _subclass("AlreadyExistsError", ALREADY_EXISTS)
PermissionDeniedError = _subclass("PermissionDeniedError", PERMISSION_DENIED)
ResourceExhaustedError = _subclass("ResourceExhaustedError", RESOURCE_EXHAUSTED)
FailedPreconditionError = _subclass("FailedPreconditionError", FAILED_PRECONDITION)
AbortedError = _subclass("AbortedError", ABORTED)
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE)
UnimplementedError = _subclass("UnimplementedError", UNIMPLEMENTED)
InternalError = _subclass("InternalError", INTERNAL)
UnavailableError = _subclass("UnavailableError", UNAVAILABLE)
DataLossError = _subclass("DataLossError", DATA_LOSS)
UnauthenticatedError = _subclass("UnauthenticatedError", UNAUTHENTICATED)


class UnknownError(OpError):
    def __init__(self, node_def, op, message, error_code=UNKNOWN):
        super(UnknownError, self).__init__(node_def, op, message, error_code)


_CODE_TO_CLASS = {
    CANCELLED: CancelledError, UNKNOWN: UnknownError, INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError, NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError, PERMISSION_DENIED: PermissionDeniedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError, FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError, OUT_OF_RANGE: OutOfRangeError, UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError, UNAVAILABLE: UnavailableError, DATA_LOSS: DataLossError,
    UNAUTHENTICATED: UnauthenticatedError,
}
_CLASS_TO_CODE = {c: k for k, c in _CODE_TO_CLASS.items()}

_pywrap.set_error_classes(_CODE_TO_CLASS)


def exception_type_from_error_code(error_code):
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls):
    return _CLASS_TO_CODE[cls]


class OperatorNotAllowedInGraphError(TypeError):
    """A Tensor used as a Python bool or iterated over while building a graph."""
