import re,sys
for n,line in enumerate(open(sys.argv[1])):
    d={}
    for m in re.finditer(r'(r?)([HJT])([Pi])([0-9.]+)\(',line):
        k=m.group(2)+m.group(3); d.setdefault(k,[0,0.0]); d[k][0]+=1; d[k][1]+=float(m.group(4))
    print(n+1, ' '.join(f"{k}:{c}/{s:.1f}" for k,(c,s) in sorted(d.items())), 'total %.1f'%sum(s for c,s in d.values()))
