"""pip's build of the tfc package: runs the project's CMake (one build, the same as `make`) for
the extension tfc._pywrap and libtfc, then packages python/tfc/ with the extension and
libtfc.so.0 beside it (the extension's rpath is $ORIGIN).

Environment: TFC_CMAKE_FLAGS adds CMake flags (e.g. "-DTFC_CUDA=OFF"); TFC_BUILD_JOBS sets the
parallel build jobs (default: the CPU count).
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


class BuildWithCMake(build_py):
    def run(self):
        super().run()
        if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
            raise RuntimeError("tfc's python/ must be built inside the tfc repository (CMakeLists.txt "
                               "not found in %s)" % ROOT)
        build = os.path.abspath(os.path.join(self.build_lib, os.pardir, "cmake-tfc"))
        os.makedirs(build, exist_ok=True)
        flags = ["-DCMAKE_BUILD_TYPE=Release", "-DPython3_EXECUTABLE=" + sys.executable,
                 "-DTFC_PYTHON_NO_TESTS=ON"] + shlex.split(os.environ.get("TFC_CMAKE_FLAGS", ""))
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build] + flags)
        jobs = os.environ.get("TFC_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", build, "-j", jobs, "--target", "tfc_pywrap"])
        dest = os.path.join(self.build_lib, "tfc")
        exts = glob.glob(os.path.join(build, "python", "tfc", "_pywrap*.so"))
        if not exts:
            raise RuntimeError("the CMake build made no tfc._pywrap (are Python's headers and numpy "
                               "installed for %s?)" % sys.executable)
        for f in exts:
            shutil.copy2(f, dest)
        shutil.copyfile(os.path.realpath(os.path.join(build, "libtfc.so.0")), os.path.join(dest, "libtfc.so.0"))


setup(cmdclass={"build_py": BuildWithCMake}, distclass=BinaryDistribution)
