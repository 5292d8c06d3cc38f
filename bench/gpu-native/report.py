"""Tables and the CPU scaling plot from what run-remote.sh brought back (no dependencies).

    python3 bench/gpu-native/report.py results/run1 results/run2 --cpu results/run3 results/run4 --cpu results/run1 results/run2

Prints markdown tables (GPU: matrix x kernel x dtype against cuSPARSE; CPU: threads x ms, both runs)
and writes bench/device/cpu-scaling.svg.
"""
import os
import re
import sys


def rows(path, tag='ROW'):
    out = []
    if not os.path.exists(path):
        return out
    head = None
    for line in open(path):
        f = line.rstrip('\n').split('\t')
        if f[0] != tag:
            continue
        if head is None:
            head = f[1:]
            continue
        out.append(dict(zip(head, f[1:])))
    return out


def gpu_tables(runs):
    gpu = {}
    cus = {}
    for r in runs:
        for x in rows(os.path.join(r, 'gpu.tsv')):
            gpu.setdefault((x['matrix'], x['kernel'], x['dtype']), []).append(x)
        for x in rows(os.path.join(r, 'cusparse.tsv')):
            cus.setdefault((x['matrix'], x['dtype']), []).append(x)
    print('| matrix | kernel | dtype | draws | GPU ms (run1 / run2) | GB/s | cuSPARSE ms | time ratio cuSPARSE/shader | vs cuSPARSE f32 | error / Σ\\|a\\|\\|x\\| |')
    print('|---|---|---|---:|---:|---:|---:|---:|---:|---:|')
    order = ['poisson3D_128', 'powerlaw_2M', 'Groebner_id2003_aug', 'bcsstk13', 'rajat01', 't1']
    kern = ['csr_row', 'csr_segmented', 'ell', 'dia', 'hyb']
    best = {}
    for m in order:
        for k in kern:
            for dt in ('f32', 'f64'):
                xs = gpu.get((m, k, dt))
                if not xs:
                    continue
                ms = [float(x['gpu_ms']) for x in xs]
                c = cus.get((m, dt))
                c32 = cus.get((m, 'f32'))
                cms = min(float(x['batch_ms']) for x in c) if c else None
                c32ms = min(float(x['batch_ms']) for x in c32) if c32 else None
                sm = min(ms)
                ratio = f'{cms / sm:.3f}' if cms else '-'
                r32 = f'{100 * c32ms / sm:.1f}%' if c32ms else '-'
                if dt == 'f32' and c32ms:
                    if m not in best or sm < best[m][1]:
                        best[m] = (k, sm, c32ms)
                print(f"| {m} | {k} | {dt} | {xs[0]['draws']} | {' / '.join(f'{v:.4f}' for v in ms)} | {xs[0]['GBps_gpu']} | "
                      f"{cms if cms is None else f'{cms:.4f}'} | {ratio} | {r32} | {xs[0]['err_bound_ratio']} |")
    print()
    print('| matrix | best f32 shader | shader ms | cuSPARSE f32 ms | share of cuSPARSE f32 throughput | goal ≥ 50% |')
    print('|---|---|---:|---:|---:|---|')
    for m in order:
        if m in best:
            k, sm, c = best[m]
            print(f'| {m} | {k} | {sm:.4f} | {c:.4f} | {100 * c / sm:.1f}% | {"met" if c / sm >= 0.5 else "MISS"} |')
    print()
    for r in runs:
        p = os.path.join(r, 'probe.tsv')
        if os.path.exists(p):
            print('| probe (same GLES context) | GPU ms | wall ms | GB/s |')
            print('|---|---:|---:|---:|')
            for x in rows(p, 'PROBE'):
                print(f"| {x['label']} | {x['gpu_ms']} | {x['wall_ms']} | {x['GBps']} |")
            print()
        for line in open(os.path.join(r, 'cusparse.tsv')):
            if line.startswith('BW'):
                f = line.split('\t')
                print(f'- CUDA ({os.path.basename(r)}): {f[1]}: {f[2]} ms, {f[3].strip()} GB/s')
    print()


def cpu_rows(path):
    """(matrix, dtype, impl, threads) -> ms from the bench's tables."""
    out = {}
    cur = None
    for line in open(path):
        m = re.match(r'^(\S+) (f32|f64)\s+\d+ rows', line)
        if m:
            cur = (m.group(1), m.group(2))
            continue
        m = re.match(r'^(simdgl|native C)\s+(\d+)\s+([\d.]+)', line)
        if m and cur:
            out[(cur[0], cur[1], m.group(1), int(m.group(2)))] = float(m.group(3))
    return out


def cpu_tables(runs):
    data = [cpu_rows(os.path.join(r, 'cpu.log')) for r in runs if os.path.exists(os.path.join(r, 'cpu.log'))]
    mats = ['poisson3D_64', 'poisson3D_128', 'powerlaw_250k']
    threads = [1, 2, 4, 8, 16]
    for m in mats:
        for dt in ('f32', 'f64'):
            print(f'**{m} {dt}** (ms per product; ratio = native C ms / simdgl ms, goal ≥ 0.9)\n')
            print('| threads | ' + ' | '.join(f'simdgl run{i + 1} | native C run{i + 1} | ratio run{i + 1}' for i in range(len(data))) + ' |')
            print('|---:|' + '---:|---:|---:|' * len(data))
            for t in threads:
                cells = []
                for d in data:
                    s, n = d.get((m, dt, 'simdgl', t)), d.get((m, dt, 'native C', t))
                    cells += [f'{s:.3f}' if s else '-', f'{n:.3f}' if n else '-', f'{n / s:.2f}' if s and n else '-']
                print(f'| {t} | ' + ' | '.join(cells) + ' |')
            print()
    return data


W, H, L, B, T, R = 640, 400, 60, 50, 30, 170
THREADS = [1, 2, 4, 8, 16]


def axes(title, ymax, step):
    """The frame both plots share: threads on a log₂ x axis, a ratio on y; returns (parts, xs, y)."""
    import math
    xs = {t: L + (W - L - R) * math.log2(t) / 4 for t in THREADS}
    y = lambda v: H - B - (H - B - T) * v / ymax  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
             f'<rect width="{W}" height="{H}" fill="white"/>',
             f'<text x="20" y="18" font-size="14">{title}</text>']
    v = 0
    while v <= ymax + 1e-9:
        parts.append(f'<line x1="{L}" y1="{y(v)}" x2="{W - R}" y2="{y(v)}" stroke="#ddd"/><text x="{L - 8}" y="{y(v) + 4}" text-anchor="end">{v:g}×</text>')
        v += step
    for t in THREADS:
        parts.append(f'<text x="{xs[t]}" y="{H - B + 18}" text-anchor="middle">{t}</text>')
    parts.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">threads</text>')
    return parts, xs, y


def formats_svg(log, path):
    """native C ms / auto ms per thread count for each matrix and dtype of a formats.log."""
    ratios = {}
    cur = None
    for line in open(log):
        m = re.match(r'^(\S+) (f32|f64)\s+\d+×\d+', line)
        if m:
            cur = f'{m.group(1)} {m.group(2)}'
            continue
        m = re.match(r'^auto \((\w+)\)\s+(.*)$', line)
        if m and cur:
            ratios[f'{cur} ({m.group(1)})'] = [float(v) for v in re.findall(r'([\d.]+)×', m.group(2))]
    parts, xs, y = axes("format: 'auto' against native C CSR, 16-core H100 host (≥ 1: simdgl faster)", 3.5, 0.5)
    parts.append(f'<line x1="{L}" y1="{y(1)}" x2="{W - R}" y2="{y(1)}" stroke="#999" stroke-dasharray="4 4"/>')
    colors = ['#1f77b4', '#1f77b4', '#d62728', '#d62728']
    for i, (name, vals) in enumerate(ratios.items()):
        col, dash = colors[i % 4], '' if 'f32' in name else '6 3'
        pts = [(xs[t], y(v)) for t, v in zip(THREADS, vals)]
        parts.append(f'<polyline fill="none" stroke="{col}" stroke-width="2" stroke-dasharray="{dash}" points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in pts)}"/>')
        for a, b in pts:
            parts.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{col}"/>')
        ly = T + 20 + 20 * i
        parts.append(f'<line x1="{W - R + 5}" y1="{ly}" x2="{W - R + 30}" y2="{ly}" stroke="{col}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{W - R + 34}" y="{ly + 4}" font-size="10">{name}</text>')
    parts.append('</svg>')
    open(path, 'w').write('\n'.join(parts) + '\n')


def svg(data, path):
    """Speed-up over 1 simdgl thread on poisson3D_128 f32/f64, simdgl and native C, both runs averaged."""
    threads = THREADS
    ymax = 20
    parts, xs, y = axes('CSR SpMV poisson3D_128, 16-core H100 host: throughput vs 1-thread simdgl', ymax, 4)
    parts.append(f'<line x1="{xs[1]}" y1="{y(1)}" x2="{xs[16]}" y2="{y(16)}" stroke="#999" stroke-dasharray="4 4"/>')
    styles = [('simdgl', 'f32', '#1f77b4', ''), ('native C', 'f32', '#ff7f0e', ''), ('simdgl', 'f64', '#1f77b4', '6 3'), ('native C', 'f64', '#ff7f0e', '6 3')]
    for i, (impl, dt, col, dash) in enumerate(styles):
        base = [d[('poisson3D_128', dt, 'simdgl', 1)] for d in data]
        pts = []
        for t in threads:
            v = sum(b / d[('poisson3D_128', dt, impl, t)] for b, d in zip(base, data)) / len(data)
            pts.append((xs[t], y(v)))
        parts.append(f'<polyline fill="none" stroke="{col}" stroke-width="2" stroke-dasharray="{dash}" points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in pts)}"/>')
        for a, b in pts:
            parts.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{col}"/>')
        ly = T + 20 + 20 * i
        parts.append(f'<line x1="{W - R + 15}" y1="{ly}" x2="{W - R + 45}" y2="{ly}" stroke="{col}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{W - R + 50}" y="{ly + 4}">{impl} {dt}</text>')
    parts.append(f'<text x="{W - R + 15}" y="{T + 110}" fill="#999">dashed grey: linear</text>')
    parts.append(f'<text x="{W - R + 15}" y="{T + 128}" fill="#666">mean of {len(data)} runs</text>')
    parts.append('</svg>')
    open(path, 'w').write('\n'.join(parts) + '\n')


if __name__ == '__main__':
    # report.py GPU_RUN... [--cpu CPU_RUN...]...   (each --cpu group gets its own CPU tables)
    # report.py --formats FORMATS_LOG OUT.svg      (the 'auto' scaling plot of a formats run)
    if sys.argv[1:2] == ['--formats']:
        formats_svg(sys.argv[2], sys.argv[3])
        sys.exit(0)
    groups = [[]]
    for a in sys.argv[1:]:
        if a == '--cpu':
            groups.append([])
        else:
            groups[-1].append(a)
    gpu_runs, cpu_groups = groups[0], groups[1:] or [groups[0]]
    print('## GPU\n')
    gpu_tables(gpu_runs)
    print('## CPU\n')
    alldata = []
    for g in cpu_groups:
        print(f"### {', '.join(os.path.basename(r) for r in g)}\n")
        alldata += cpu_tables(g)
    if alldata:
        here = os.path.dirname(os.path.abspath(__file__))
        svg(alldata, os.path.join(here, '..', 'device', 'cpu-scaling.svg'))
