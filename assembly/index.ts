// Re-exports every kernel family; the build compiles this file.
export * from './spmv_dia';
export * from './spmv_ell';
export * from './spmv_dense';
