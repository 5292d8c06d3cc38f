/** Loads the shared SuiteSparse matrices (data/matrices in the repository) for the tests. */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseMatrixMarket } from '../src/io/index.js';
import type { CSRMatrix } from '../src/formats/csr.js';

export const MATRIX_DIR = fileURLToPath(new URL('../data/matrices/', import.meta.url));

export function sharedMatrixNames(): string[] {
  return readdirSync(MATRIX_DIR)
    .filter((f) => f.endsWith('.mtx'))
    .map((f) => f.slice(0, -4))
    .sort();
}

export function loadShared(name: string): CSRMatrix {
  return parseMatrixMarket(readFileSync(`${MATRIX_DIR}${name}.mtx`)).matrix.toCSR();
}
