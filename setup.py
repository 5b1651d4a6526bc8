"""`pip install .` (pyproject.toml): builds libclparity.so with CMake and installs it beside the
module, as site-packages/clparity.libs/libclparity.so.0, where clparity.py looks first after
$CLPARITY_LIBRARY. CMake, a C compiler and the Debian packages of tools/setup.sh must be there;
the build is in build/pip/ (CLPARITY_CMAKE_ARGS adds options to its configure)."""
import os
import re
import shlex
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join("build", "pip")  # under the git-ignored build/, beside CMake's own


def cmake_version():
    text = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    return re.search(r"project\(clparity VERSION ([0-9.]+)", text).group(1)


class BuildWithLibrary(build_py):
    """The module, and libclparity.so.0 built by CMake (the target clparity_shared only)."""

    def run(self):
        super().run()
        if not shutil.which("cmake"):
            raise SystemExit("clparity: cmake is needed to build libclparity.so: run "
                             "tools/setup.sh (Debian 12) first")
        tree = os.path.join(ROOT, BUILD, "cmake")
        configure = ["cmake", "-S", ROOT, "-B", tree, "-DCMAKE_BUILD_TYPE=Release",
                     *shlex.split(os.environ.get("CLPARITY_CMAKE_ARGS", ""))]
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        for cmd in (configure, ["cmake", "--build", tree, "--target", "clparity_shared",
                                "-j", jobs]):
            print("clparity:", " ".join(cmd), flush=True)
            subprocess.run(cmd, check=True)
        lib = os.path.join(tree, "libclparity.so.0")
        dest = os.path.join(self.build_lib, "clparity.libs")
        os.makedirs(dest, exist_ok=True)
        # the file itself, not the symbolic link, under the name that the module loads
        shutil.copyfile(os.path.realpath(lib), os.path.join(dest, "libclparity.so.0"))


class BinaryDistribution(Distribution):
    """A wheel for this platform: it holds libclparity.so."""

    def has_ext_modules(self):
        return True


setup(version=cmake_version(), cmdclass={"build_py": BuildWithLibrary},
      distclass=BinaryDistribution, options={"build": {"build_base": BUILD}})
