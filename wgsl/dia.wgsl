// DIA SpMV (seed 002), one thread per row (dia_row.wgsl): the values as E, data binding 4.
#include "dia_row.wgsl"

@group(0) @binding(4) var<storage, read> data: array<E>;

fn dia_value(k: u32) -> E { return data[k]; }
