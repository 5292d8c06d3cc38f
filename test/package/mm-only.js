// Consumer fixture: a page that imports only the Matrix Market reader; test/package.test.ts bundles it
// from the installed package and from the repository's sources and compares the sizes (tree-shaking).
import { readMatrixMarket } from 'simdgl';

globalThis.readMatrixMarket = readMatrixMarket;
