"""tf.gfile and tf.io.gfile: TF 1.x's file API over the local file system.

TF's gfile goes through its C++ FileSystem registry; tfc's Python front end serves the local
file system (paths without a scheme, and file://) with os/shutil/glob, giving TF's results and
its errors: NotFoundError "<path>; No such file or directory", AlreadyExistsError "file already
exists", InvalidArgumentError for a bad mode. Other schemes (gs://, hdfs://) raise
UnimplementedError naming the scheme.

GFile opens lazily, as TF's does: the file is opened at the first read or write, so a missing
file is reported there. Mode "r"/"w"/"a" read and write str, with "b" bytes.
"""
import glob as _glob
import os
import shutil

from tfc.framework import errors


def _path(p):
    p = os.fspath(p)
    if isinstance(p, bytes):
        p = p.decode("utf-8")
    if p.startswith("file://"):
        return p[len("file://"):]
    if "://" in p:
        raise errors.UnimplementedError(None, None, "File system scheme '%s' not implemented (file: '%s')"
                                        % (p.split("://", 1)[0], p))
    return p


def _not_found(p):
    return errors.NotFoundError(None, None, "%s; No such file or directory" % p)


def _os_error(e, p):
    """TF's exception for an OSError on path p."""
    import errno
    if e.errno == errno.ENOENT:
        return _not_found(p)
    if e.errno == errno.EEXIST:
        return errors.AlreadyExistsError(None, None, "%s; File exists" % p)
    if e.errno in (errno.EACCES, errno.EPERM):
        return errors.PermissionDeniedError(None, None, "%s; Permission denied" % p)
    if e.errno == errno.ENOTDIR:
        return errors.FailedPreconditionError(None, None, "%s; Not a directory" % p)
    return errors.UnknownError(None, None, "%s; %s" % (p, e.strerror))


class GFile(object):
    """tf.gfile.GFile(name, mode="r"): a file opened at its first use; iterable by lines."""

    def __init__(self, name, mode="r"):
        self._name = os.fspath(name)
        if mode.replace("b", "") not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._mode = mode
        self._f = None

    name = property(lambda self: self._name)
    mode = property(lambda self: self._mode)

    def _file(self):
        if self._f is None:
            p = _path(self._name)
            try:
                if "b" in self._mode:
                    self._f = open(p, self._mode)
                else:
                    self._f = open(p, self._mode, encoding="utf-8", newline="")
            except OSError as e:
                raise _os_error(e, self._name)
        return self._f

    def size(self):
        return stat(self._name).length

    def read(self, n=-1):
        return self._file().read(n)

    def readline(self):
        return self._file().readline()

    def readlines(self):
        return self._file().readlines()

    def write(self, data):
        f = self._file()
        if "b" not in self._mode and isinstance(data, bytes):
            data = data.decode("utf-8")
        elif "b" in self._mode and isinstance(data, str):
            data = data.encode("utf-8")
        f.write(data)

    def seek(self, offset=None, whence=0, position=None):
        if position is not None:
            offset = position
        self._file().seek(offset, whence)

    def tell(self):
        return self._file().tell()

    def flush(self):
        if self._f is not None:
            self._f.flush()

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def __enter__(self):
        return self

    def __exit__(self, *unused):
        self.close()


FastGFile = GFile
Open = GFile


def exists(path):
    return os.path.exists(_path(path))


def isdir(path):
    return os.path.isdir(_path(path))


def makedirs(path):
    p = _path(path)
    try:
        os.makedirs(p, exist_ok=True)
    except OSError as e:
        raise _os_error(e, path)


def mkdir(path):
    p = _path(path)
    if os.path.isdir(p):
        return
    try:
        os.mkdir(p)
    except OSError as e:
        raise _os_error(e, path)


def listdir(path):
    p = _path(path)
    if not os.path.isdir(p):
        raise errors.NotFoundError(None, None, "Could not find directory %s" % path)
    return os.listdir(p)


def glob(pattern):
    if isinstance(pattern, (list, tuple)):
        return [m for p in pattern for m in glob(p)]
    return sorted(_glob.glob(_path(pattern)))


def remove(path):
    p = _path(path)
    try:
        os.remove(p)
    except OSError as e:
        raise _os_error(e, path)


def rmtree(path):
    p = _path(path)
    if not os.path.exists(p):
        raise errors.NotFoundError(None, None, "%s not found" % path)
    if os.path.isdir(p):
        shutil.rmtree(p)
    else:
        os.remove(p)


def copy(oldpath, newpath, overwrite=False):
    src, dst = _path(oldpath), _path(newpath)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        raise _os_error(e, oldpath if not os.path.exists(src) else newpath)


def rename(oldname, newname, overwrite=False):
    src, dst = _path(oldname), _path(newname)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.replace(src, dst)
    except OSError as e:
        raise _os_error(e, oldname)


class FileStatistics(object):
    """What stat() gives: length, mtime_nsec, is_directory."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def stat(path):
    try:
        st = os.stat(_path(path))
    except OSError as e:
        raise _os_error(e, path)
    import stat as _st
    return FileStatistics(st.st_size, st.st_mtime_ns, _st.S_ISDIR(st.st_mode))


def walk(top, topdown=True, onerror=None):
    """(dirname, subdirs, files) per directory; nothing for a missing top."""
    p = _path(top)
    if not os.path.isdir(p):
        return
    names = sorted(os.listdir(p))
    dirs = [n for n in names if os.path.isdir(os.path.join(p, n))]
    files = [n for n in names if n not in dirs]
    if topdown:
        yield top, dirs, files
    for d in dirs:
        for r in walk(os.path.join(top, d), topdown, onerror):
            yield r
    if not topdown:
        yield top, dirs, files


def join(path, *paths):
    return os.path.join(path, *paths)


def get_registered_schemes():
    return ["file", ""]


def v1_module(types_module):
    """tf.gfile: the TF 1.x capitalized names."""
    m = types_module.ModuleType("tfc.gfile", "tf.gfile")
    for n, f in (("Exists", exists), ("IsDirectory", isdir), ("MakeDirs", makedirs), ("MkDir", mkdir),
                 ("ListDirectory", listdir), ("Glob", glob), ("Remove", remove), ("DeleteRecursively", rmtree),
                 ("Copy", copy), ("Rename", rename), ("Stat", stat), ("Walk", walk), ("GFile", GFile),
                 ("Open", GFile), ("FastGFile", FastGFile)):
        setattr(m, n, f)
    return m


def v2_module(types_module):
    """tf.io.gfile: the lower-case names."""
    m = types_module.ModuleType("tfc.io.gfile", "tf.io.gfile")
    for n in ("GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join", "listdir", "makedirs",
              "mkdir", "remove", "rename", "rmtree", "stat", "walk"):
        setattr(m, n, globals()[n])
    return m
