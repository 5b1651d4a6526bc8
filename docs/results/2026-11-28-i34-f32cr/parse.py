import json, glob, sys, re, statistics
d = sys.argv[1]
rows = {}
for f in sorted(glob.glob(d + '/*.json')):
    tag = f.split('/')[-1][:-5]
    setting, shape, rnd = tag.rsplit('.', 2)
    j = json.load(open(f))
    t = {}
    rt = {}
    for r in j['results']:
        med = r.get('timing', {}).get('wall_median_s')
        t[r['engine']] = med
        rt[r['engine']] = r.get('routine', '')
    rows.setdefault((shape, setting), []).append((rnd, t.get('cl:own'), t.get('cl:cr'), rt.get('cl:cr')))
for (shape, setting), v in sorted(rows.items()):
    ratios = [o / c for _, o, c, _ in v if o and c]
    print(shape, setting, 'rounds', len(v), 'own ms', [round(o*1e3, 2) for _, o, c, _ in v],
          'cr ms', [round(c*1e3, 2) for _, o, c, _ in v], 'own/cr', [round(x, 3) for x in ratios],
          'median', round(statistics.median(ratios), 3) if ratios else None, '|', v[0][3])
