#!/usr/bin/env bash
# The installed program finds the installed libraries: `cmake --install` into
# a fresh prefix, then the program from there (and through a symbolic link
# elsewhere, as from /usr/local/bin) uses <prefix>/<libdir>/mpiscope/<mpi>;
# mpiscope.h, VT.h and VT.inc are in <prefix>/include.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
prefix="$MSC_OUT/prefix"
"$MSC_CMAKE" --install "$MSC_BINARY_DIR" --prefix "$prefix" > "$MSC_OUT/install.log" 2>&1 ||
  { cat "$MSC_OUT/install.log"; fail "cmake --install failed"; finish; }
installed="$prefix/bin/mpiscope"
[ -x "$installed" ] || fail "$installed was not installed"
# The headers docs/vt.md and docs/design.md tell users to include, the same
# bytes as in the source tree.
for h in mpiscope.h VT.h VT.inc; do
  if [ -f "$prefix/include/$h" ]; then
    cmp -s "$prefix/include/$h" "$MSC_SOURCE_DIR/include/$h" || fail "$prefix/include/$h differs from include/$h"
  else
    fail "$h was not installed into $prefix/include"
  fi
done
mkdir -p "$MSC_OUT/elsewhere" && ln -sf "$installed" "$MSC_OUT/elsewhere/mpiscope"

for m in "$installed" "$MSC_OUT/elsewhere/mpiscope"; do
  capture "$m" --version
  expect_rc 0 "$m --version"
  for f in $MSC_FLAVORS; do
    expect_in "$out" "$prefix/$MSC_LIBDIR_REL/$f/libmpiscope.so" "$m --version"
  done
  expect_not_in "$out" "not built" "$m --version"
  expect_not_in "$out" "$MSC_LIBDIR" "$m --version"
done
for f in $MSC_FLAVORS; do
  prog="$MSC_TEST_BIN/$f/cli_probe"
  capture "$installed" run -o "$MSC_OUT/results-$f" -- "$prog"
  expect_rc 0 "installed run, $f"
  expect_in "$out" " tool=yes barriers=3 " "installed run, $f"
  expect_in "$out" " preload=$prefix/$MSC_LIBDIR_REL/$f/libmpiscope.so " "installed run, $f"
done
finish
