import { optionKeys } from '../../options-check.js';
import type { AmgOptions } from './hierarchy.js';

/** The option keys rt.amg takes (with `path`) and `amg: {…}` holds. */
export const AMG_KEYS = optionKeys<AmgOptions>({
  theta: true,
  maxCoarse: true,
  maxLevels: true,
  sweeps: true,
  smoother: true,
  cycle: true,
  nearNullSpace: true,
  blockSize: true,
  improveCandidates: true,
});
