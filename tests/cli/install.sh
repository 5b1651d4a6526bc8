#!/bin/sh
# install.sh BUILD SOURCE OUT: installs the build into OUT/prefix (cmake --install), then
# builds runtime/examples/compare_example.c against the installed library twice, through
# `pkg-config --cflags --libs clparity` and through the 5-line CMake project beside it
# (find_package(clparity) -> clparity::clparity), and checks each with example.sh against the
# installed clparity binary. Nothing of the source or build tree is used after the install.
set -eu
build=$1 src=$2 out=$3
fail() { echo "install.sh: FAIL: $*"; exit 1; }
prefix=$out/prefix
rm -rf "$out"
mkdir -p "$out/ex"
cmake --install "$build" --prefix "$prefix" >"$out/install.log" 2>&1 ||
    { cat "$out/install.log"; fail "cmake --install"; }
cp "$src/runtime/examples/compare_example.c" "$src/runtime/examples/CMakeLists.txt" "$out/ex/"
libdir=$(dirname "$(find "$prefix" -name 'libclparity.so.0' | head -n 1)")
test -f "$libdir/libclparity.a" || fail "no libclparity.a in '$libdir'"
test -f "$prefix/include/clparity/clparity.h" || fail "no include/clparity/clparity.h"
test -x "$prefix/bin/clparity" || fail "no bin/clparity"
# the SONAME is versioned
objdump -p "$libdir/libclparity.so" | grep -q 'SONAME *libclparity.so.0$' ||
    fail "the SONAME is not libclparity.so.0: $(objdump -p "$libdir/libclparity.so" | grep SONAME)"
# only the public headers' functions are exported (-fvisibility=hidden): each exported symbol
# is declared there, and an internal one (the program cache's key) is not exported
nm -D --defined-only "$libdir/libclparity.so" | awk '{print $3}' | sort >"$out/exported.txt"
cat "$prefix"/include/clparity/*.h | grep -o '\bcp_[a-z0-9_]*(' | tr -d '(' | sort -u >"$out/public.txt"
test -s "$out/exported.txt" || fail "libclparity.so exports nothing"
if comm -23 "$out/exported.txt" "$out/public.txt" | grep .; then
    echo "install.sh: libclparity.so exports symbols outside the public headers (above)"
    exit 1
fi
if grep -qx cp_cache_key_init "$out/exported.txt"; then fail "cp_cache_key_init is exported"; fi

# 1. pkg-config
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$out/ex/pc_example" "$out/ex/compare_example.c" \
    $(pkg-config --cflags --libs clparity)
LD_LIBRARY_PATH=$libdir sh "$src/tests/cli/example.sh" "$prefix/bin/clparity" \
    "$out/ex/pc_example" "$out/pc"

# 2. find_package(clparity)
{ cmake -S "$out/ex" -B "$out/ex/build" -DCMAKE_PREFIX_PATH="$prefix" &&
    cmake --build "$out/ex/build"; } >"$out/cmake.log" 2>&1 ||
    { cat "$out/cmake.log"; fail "the find_package(clparity) build"; }
sh "$src/tests/cli/example.sh" "$prefix/bin/clparity" "$out/ex/build/compare_example" \
    "$out/cmake"
echo "install.sh: both builds of the example agree with clparity compare"
