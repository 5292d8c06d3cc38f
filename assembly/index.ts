// Re-exports every kernel family; the build compiles this file.
export * from './spmv_csr';
export * from './spmv_csr_grouped';
export * from './spmv_coo';
export * from './spmv_mrs';
export * from './spmv_jds';
export * from './spmv_tiles';
export * from './spmv_sell';
export * from './blas1';
export * from './spmv_dia';
export * from './spmv_ell';
export * from './spmv_dense';
export * from './dense';
export * from './cg_fused';
export * from './sptrsv';
export * from './cholesky';
export * from './spgemm';
export * from './lanczos';
