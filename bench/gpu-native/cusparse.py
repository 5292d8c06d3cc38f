"""cuSPARSE CSR SpMV through CuPy on the matrices and x of a GPU dump (bench/gpu-native/dump.ts writes
DUMP/mat__<name>/{rowptr,colidx}.bin int32, values.bin and x.bin f64, info.json), in f32 and f64.

    python3 cusparse.py DUMP [--min-ms 300] > cusparse.tsv

Per matrix and dtype: y = A @ x via cupyx.cusparse.spmv into a preallocated y (falls back to A @ x),
warm-up, then CUDA events around each call (median) and around a batch (mean), checked against a
float64 CPU product (max |y - ref| / sum_j |a_ij x_j|). Effective GB/s by DESIGN.md's formula: CSR
arrays (rowPtr + colIdx + values in the dtype) + x + y. Also prints the device-to-device copy
bandwidth (bytes read + written) and the launch overhead of an empty kernel, for the cost model.
"""
import json
import os
import sys
import time

import numpy as np
import cupy as cp
import cupyx
import cupyx.scipy.sparse as cps

try:
    from cupyx import cusparse as cusp
except Exception:  # pragma: no cover
    cusp = None


def median_events(fn, reps):
    starts = [cp.cuda.Event() for _ in range(reps)]
    ends = [cp.cuda.Event() for _ in range(reps)]
    for i in range(reps):
        starts[i].record()
        fn()
        ends[i].record()
    ends[-1].synchronize()
    t = sorted(cp.cuda.get_elapsed_time(s, e) for s, e in zip(starts, ends))
    return t[len(t) // 2]


def batch_mean(fn, reps):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    s.record()
    for _ in range(reps):
        fn()
    e.record()
    e.synchronize()
    return cp.cuda.get_elapsed_time(s, e) / reps


def reps_for(fn, min_ms):
    fn()
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    fn()
    cp.cuda.Device().synchronize()
    est = (time.perf_counter() - t0) * 1e3
    return int(min(2000, max(20, min_ms / max(est, 1e-3))))


def main():
    dump = sys.argv[1]
    min_ms = float(sys.argv[sys.argv.index('--min-ms') + 1]) if '--min-ms' in sys.argv else 300.0
    props = cp.cuda.runtime.getDeviceProperties(0)
    print(f"# {props['name'].decode()} | CUDA runtime {cp.cuda.runtime.runtimeGetVersion()} | CuPy {cp.__version__}", flush=True)

    # device-to-device copy bandwidth (read + write) and empty-kernel overhead
    n = 1 << 28  # 1 GiB of f32
    a = cp.ones(n, dtype=cp.float32)
    b = cp.empty_like(a)
    ms = median_events(lambda: cp.copyto(b, a), 20)
    print(f"BW\tcopy_1GiB\t{ms:.4f}\t{2 * a.nbytes / 1e9 / (ms / 1e3):.1f}", flush=True)
    del a, b
    k = cp.ElementwiseKernel('float32 x', 'float32 y', 'y = x', 'noop')
    tiny_in = cp.zeros(1, dtype=cp.float32)
    tiny_out = cp.zeros(1, dtype=cp.float32)
    ms = batch_mean(lambda: k(tiny_in, tiny_out), 2000)
    print(f"BW\tempty_kernel_launch\t{ms:.5f}\t0", flush=True)

    # dense f32 n x n multiply through cuBLAS (CuPy matmul), the peer of the WebGPU gemm
    gn = int(sys.argv[sys.argv.index('--gemm') + 1]) if '--gemm' in sys.argv else 4096
    if gn > 0:
        ga = cp.random.default_rng(1).random((gn, gn), dtype=cp.float32) * 2 - 1
        gb = cp.random.default_rng(2).random((gn, gn), dtype=cp.float32) * 2 - 1
        gc = cp.empty((gn, gn), dtype=cp.float32)
        ms = median_events(lambda: cp.matmul(ga, gb, out=gc), 20)
        print(f"GEMM\tcublas_f32\t{gn}\tms\t{ms:.4f}\tTFLOPs\t{2 * gn ** 3 / ms / 1e9:.2f}", flush=True)
        del ga, gb, gc

    print("ROW\tmatrix\tdtype\trows\tnnz\teff_bytes\tevent_ms\tbatch_ms\tGBps\terr_bound_ratio\treps\tapi", flush=True)
    for d in sorted(os.listdir(dump)):
        if not d.startswith('mat__'):
            continue
        p = os.path.join(dump, d)
        info = json.load(open(os.path.join(p, 'info.json')))
        rows, cols, nnz = info['rows'], info['cols'], info['nnz']
        rowptr = np.fromfile(os.path.join(p, 'rowptr.bin'), dtype=np.int32)
        colidx = np.fromfile(os.path.join(p, 'colidx.bin'), dtype=np.int32)
        vals = np.fromfile(os.path.join(p, 'values.bin'), dtype=np.float64)
        x64 = np.fromfile(os.path.join(p, 'x.bin'), dtype=np.float64)
        for dt in (np.float32, np.float64):
            v = vals.astype(dt)
            x = x64.astype(dt)
            # reference in f64 from the values and x as the dtype holds them
            import scipy.sparse as sps
            A64 = sps.csr_matrix((v.astype(np.float64), colidx, rowptr), shape=(rows, cols))
            ref = A64 @ x.astype(np.float64)
            bound = abs(A64) @ np.abs(x.astype(np.float64))
            A = cps.csr_matrix((cp.asarray(v), cp.asarray(colidx), cp.asarray(rowptr)), shape=(rows, cols))
            xd = cp.asarray(x)
            yd = cp.empty(rows, dtype=dt)
            api = 'cupyx.cusparse.spmv'
            if cusp is not None and hasattr(cusp, 'spmv'):
                def f():
                    return cusp.spmv(A, xd, y=yd, alpha=1.0, beta=0.0)
                try:
                    f()
                except Exception as e:  # noqa: BLE001
                    print(f"# spmv with preallocated y failed ({e}); using A @ x", flush=True)
                    api = 'A @ x'
                    f = lambda: A @ xd  # noqa: E731
            else:
                api = 'A @ x'
                f = lambda: A @ xd  # noqa: E731
            y = f()
            cp.cuda.Device().synchronize()
            err = np.abs(cp.asnumpy(y).astype(np.float64) - ref)
            worst = float(np.max(np.where(bound > 0, err / np.where(bound > 0, bound, 1), 0))) if rows else 0.0
            reps = reps_for(f, min_ms / 2)
            for _ in range(5):
                f()
            ev = median_events(f, reps)
            bm = batch_mean(f, reps)
            vb = 4 if dt == np.float32 else 8
            eff = rowptr.nbytes + colidx.nbytes + nnz * vb + (rows + cols) * vb
            name = info['name']
            dts = 'f32' if dt == np.float32 else 'f64'
            print(f"ROW\t{name}\t{dts}\t{rows}\t{nnz}\t{eff}\t{ev:.5f}\t{bm:.5f}\t{eff / 1e9 / (bm / 1e3):.1f}\t{worst:.2e}\t{reps}\t{api}", flush=True)
            del A, xd, yd, y


if __name__ == '__main__':
    main()
