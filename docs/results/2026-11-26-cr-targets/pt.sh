pt() { # name tune engines sel args...
  local name=$1 tune=$2 eng=$3 sel=$4; shift 4
  CLPARITY_CR_TUNE=$tune timeout 100 $clp run -d "$sel" --engines $eng --no-reference --min-time 0.1 --init-scale 0.5 --json $out/j.json "$@" > $out/last.txt 2>&1
  local rc=$?
  python3 - "$name" "$tune" $rc $out/j.json >> $T <<'PY'
import json,sys
name,tune,rc,f=sys.argv[1:5]
try:
    d=json.load(open(f))
    for r in d['results']:
        t=r['timing']; print(f"{name}\t{tune or 'default'}\t{r['engine']}\t{r['hash']}\t{r['device']['label'][:20]}\t{t['wall_median_s']*1e3:.4f}\t{(t.get('kernel_median_s') or 0)*1e3:.4f}\t{t['runs']}\t{r['routine']}\trc={rc}")
except Exception as e:
    print(f"{name}\t{tune}\tERR rc={rc} {e}")
PY
  [ $rc -ne 0 ] && tail -3 $out/last.txt >> $T
  rm -f $out/j.json
}
