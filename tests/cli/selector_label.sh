#!/usr/bin/env bash
# Usage: selector_label.sh CLPARITY PYTHON
# Device selection as clinfo users expect (docs/SELECTION.md): the label that clparity prints
# ("0:0 NAME", as in every table) selects that device, whole or cut short ("NAME-start...");
# `devices -d 0:0` lists that one device and no other (clinfo -d 0:0), and `devices -d host`
# only the host; a label whose name is not that device's matches nothing, in one line.
set -u
clp=$1 py=$2
fail() { echo "FAIL: $*"; exit 1; }
name=$("$clp" devices --json - | "$py" -c 'import json,sys; d=[x for x in json.load(sys.stdin)["devices"] if x["kind"] == "opencl" and x["platform_index"] == 0 and x["device_index"] == 0]; print(d[0]["name"] if d else "")') ||
    fail "devices --json failed"
[ -n "$name" ] || fail "no OpenCL device 0:0 here"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
one() { # SELECTOR: devices -d SELECTOR must list device 0:0 only
    "$clp" devices -d "$1" >"$out" 2>&1 || { cat "$out"; fail "devices -d '$1' exited $?"; }
    [ "$(grep -c '^ `-- Device' "$out")" = 1 ] || { cat "$out"; fail "devices -d '$1' does not list one device"; }
    grep -qF " \`-- Device #0: $name" "$out" || { cat "$out"; fail "devices -d '$1' does not list 0:0 $name"; }
    echo "ok: devices -d '$1' lists 0:0 $name only"
}
one "0:0"
one "0:0 $name"
one "0:0 ${name:0:8}..."
one "0:0 ${name:0:12}" # cut as compare's table cuts it, without dots
one "0:0 $(echo "$name" | tr '[:lower:]' '[:upper:]')"
# The label as every command takes it: a run on that device alone.
"$clp" run -d "0:0 $name" --engines cl:own --d-model 8 --layers 1 --runs 1 --warmup 0 >"$out" 2>&1 ||
    { cat "$out"; fail "run -d '0:0 $name' exited $?"; }
grep -qF "cl:own on 0:0 $name" "$out" || { cat "$out"; fail "run -d '0:0 $name' did not run on it"; }
echo "ok: run -d '0:0 $name'"
# host only
"$clp" devices -d host >"$out" 2>&1 || { cat "$out"; fail "devices -d host exited $?"; }
! grep -q '^Platform #' "$out" && grep -q '^Host:' "$out" || { cat "$out"; fail "devices -d host lists more than the host"; }
echo "ok: devices -d host lists the host only"
# another name at 0:0: nothing, one line with the status of a selector that matches nothing
"$clp" devices -d "0:0 no-such-device" >"$out" 2>&1
st=$?
[ $st = 2 ] || { cat "$out"; fail "devices -d '0:0 no-such-device' exited $st, not 2"; }
[ "$(wc -l <"$out")" = 1 ] && grep -q "^clparity devices: device selector '0:0 no-such-device' matches no device: OpenCL shows" "$out" ||
    { cat "$out"; fail "devices -d '0:0 no-such-device': not the one line"; }
echo "ok: $(cat "$out")"
