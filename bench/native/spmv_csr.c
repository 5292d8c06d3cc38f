/*
 * Native reference for the SpMV benchmark: y = A·x for a CSR matrix, float or double, with OpenMP.
 * Built by bench/peers/native.ts at run time: gcc -O3 -march=native -fopenmp spmv_csr.c -o spmv_csr
 *
 * usage: spmv_csr DIR f32|f64 ROWS COLS NNZ THREADS [MIN_SECONDS]
 *   reads  DIR/rowptr.bin (int32, ROWS+1), DIR/colidx.bin (int32, NNZ), DIR/values.bin (NNZ reals),
 *          DIR/x.bin (COLS reals), all raw native-endian;
 *   writes DIR/y.bin (ROWS reals) and one JSON line on stdout: {"ms":…,"reps":…,"threads":…}
 *   where ms is the median wall time of one product over the timed repetitions.
 *
 * Partition: one contiguous chunk of rows per thread, balanced by nonzeros (the same static split as
 * our worker pool), found by binary search on rowPtr once, outside the timed loop. A plain
 * `omp for schedule(static)` splits rows evenly, which is unbalanced when row lengths vary
 * (power-law matrices); this way every thread streams about nnz/T entries.
 * f32 accumulates in float, as the wasm f32 kernels do.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *read_file(const char *dir, const char *name, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  /* 64-byte alignment: whole cache lines, and aligned vector loads where gcc uses them */
  void *p = aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
  if (!p) { fprintf(stderr, "out of memory (%zu bytes)\n", bytes); exit(2); }
  if (bytes && fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "short read %s\n", path); exit(2); }
  fclose(f);
  return p;
}

/* first row r with rowPtr[r] >= target (lower bound over the nondecreasing rowPtr[0..rows]) */
static int lower_bound(const int32_t *rowPtr, int rows, int64_t target) {
  int lo = 0, hi = rows;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (rowPtr[mid] < target) lo = mid + 1; else hi = mid;
  }
  return lo;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The kernel and the timing loop, once per real type. */
#define DEFINE_SPMV(T, NAME)                                                                          \
  static void NAME(const int *bounds, const int32_t *restrict rowPtr, const int32_t *restrict colIdx,  \
                   const T *restrict val, const T *restrict x, T *restrict y) {                      \
    _Pragma("omp parallel")                                                                           \
    {                                                                                                 \
      int t = omp_get_thread_num();                                                                   \
      for (int i = bounds[t]; i < bounds[t + 1]; i++) {                                               \
        T sum = 0;                                                                                    \
        for (int32_t k = rowPtr[i]; k < rowPtr[i + 1]; k++) sum += val[k] * x[colIdx[k]];            \
        y[i] = sum;                                                                                   \
      }                                                                                               \
    }                                                                                                 \
  }
DEFINE_SPMV(float, spmv_f32)
DEFINE_SPMV(double, spmv_f64)

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: %s DIR f32|f64 ROWS COLS NNZ THREADS [MIN_SECONDS]\n", argv[0]);
    return 1;
  }
  const char *dir = argv[1];
  int f32 = strcmp(argv[2], "f32") == 0;
  if (!f32 && strcmp(argv[2], "f64") != 0) { fprintf(stderr, "dtype must be f32 or f64\n"); return 1; }
  int rows = atoi(argv[3]), cols = atoi(argv[4]);
  int64_t nnz = atoll(argv[5]);
  int threads = atoi(argv[6]);
  double minSeconds = argc > 7 ? atof(argv[7]) : 0.3;
  if (threads < 1) threads = 1;
  omp_set_dynamic(0); /* exactly `threads` threads, so the chunk count matches the team size */
  omp_set_num_threads(threads);
  size_t vs = f32 ? sizeof(float) : sizeof(double);

  int32_t *rowPtr = read_file(dir, "rowptr.bin", sizeof(int32_t) * (size_t)(rows + 1));
  int32_t *colIdx = read_file(dir, "colidx.bin", sizeof(int32_t) * (size_t)nnz);
  void *val = read_file(dir, "values.bin", vs * (size_t)nnz);
  void *x = read_file(dir, "x.bin", vs * (size_t)cols);
  void *y = aligned_alloc(64, (vs * (size_t)rows + 63) / 64 * 64 + 64);

  /* nnz-balanced contiguous chunks: thread t starts at the first row whose entries begin at or
     after t·nnz/T. Rows are never split, so one huge row can still dominate a chunk. */
  int *bounds = malloc(sizeof(int) * (threads + 1));
  bounds[0] = 0;
  bounds[threads] = rows;
  for (int t = 1; t < threads; t++) bounds[t] = lower_bound(rowPtr, rows, nnz * t / threads);

#define RUN() (f32 ? spmv_f32(bounds, rowPtr, colIdx, val, x, y) : spmv_f64(bounds, rowPtr, colIdx, val, x, y))
  /* warm-up: page faults on y, thread start-up, caches; then time until minSeconds (and ≥ 10 reps) */
  for (int w = 0; w < 3; w++) RUN();
  int cap = 1 << 20, reps = 0;
  double *times = malloc(sizeof(double) * cap);
  double start = omp_get_wtime();
  while (reps < cap && (reps < 10 || omp_get_wtime() - start < minSeconds)) {
    double t0 = omp_get_wtime();
    RUN();
    times[reps++] = omp_get_wtime() - t0;
  }
  qsort(times, reps, sizeof(double), cmp_double);
  double med = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;

  char path[4096];
  snprintf(path, sizeof path, "%s/y.bin", dir);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(y, vs, (size_t)rows, f) != (size_t)rows) { fprintf(stderr, "cannot write %s\n", path); return 2; }
  fclose(f);
  printf("{\"ms\":%.6f,\"reps\":%d,\"threads\":%d}\n", med * 1e3, reps, threads);
  return 0;
}
