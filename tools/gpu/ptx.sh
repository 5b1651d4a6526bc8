#!/usr/bin/env bash
# Copies the NVIDIA program binaries (PTX text) of clparity's cache folder $1 whose source
# holds kernel $2 to folder $3, for reading the generated code.
set -u
mkdir -p "$3"
for f in "$1"/*.bin; do
    grep -aq '\.target sm_' "$f" && grep -aq "$2" "$f" && cp "$f" "$3/"
done
ls "$3"
