export { poisson2D, poisson3D } from './poisson.js';
export { randomMatrix, type RandomMatrixOptions } from './random.js';
export { Prng } from './prng.js';
export { elasticity2D, type ElasticityOptions } from './elasticity.js';
