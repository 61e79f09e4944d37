"""tf.logging: TF 1.x's logging functions over Python's logging module.

One logger, "tensorflow" (as TF's), writing to stderr with TF's "LEVEL:tensorflow:message"
layout through the logging module's default handler setup; levels are the logging module's
(DEBUG 10, INFO 20, WARN 30, ERROR 40, FATAL 50) and the default verbosity is WARN.
log_every_n / log_first_n count per call site (file and line), as TF's do.
"""
import logging as _logging
import sys as _sys

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARN
ERROR = _logging.ERROR
FATAL = _logging.FATAL

_logger = None
_counts = {}


def get_logger():
    """The "tensorflow" logger, given a stderr handler the first time."""
    global _logger
    if _logger is None:
        logger = _logging.getLogger("tensorflow")
        if not logger.handlers and not _logging.getLogger().handlers:
            h = _logging.StreamHandler(_sys.stderr)
            h.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
            logger.addHandler(h)
        if logger.level == _logging.NOTSET:
            logger.setLevel(WARN)
        _logger = logger
    return _logger


def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def _site():
    f = _sys._getframe(2)
    return f.f_code.co_filename, f.f_lineno


def log_every_n(level, msg, n, *args):
    """Logs on the 1st, (n+1)th, ... call from the same line."""
    site = _site()
    c = _counts.get(site, 0)
    _counts[site] = c + 1
    if c % max(int(n), 1) == 0:
        log(level, msg, *args)


def log_first_n(level, msg, n, *args):
    site = _site()
    c = _counts.get(site, 0)
    _counts[site] = c + 1
    if c < n:
        log(level, msg, *args)


def log_if(level, msg, condition, *args):
    if condition:
        log(level, msg, *args)


def flush():
    for h in get_logger().handlers:
        h.flush()


def get_verbosity():
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    get_logger().setLevel(v)


def TaskLevelStatusMessage(msg):  # noqa: N802 (TF's name)
    error(msg)
