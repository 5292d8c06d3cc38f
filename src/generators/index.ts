export { poisson2D, poisson3D } from './poisson.js';
export { randomMatrix, type RandomMatrixOptions } from './random.js';
export { Prng } from './prng.js';
export { elasticity2D, elasticity2DModes, type ElasticityOptions } from './elasticity.js';
export { diffusion2D, diffusion3D, type DiffusionOptions, type DiffusionCoefficients } from './diffusion.js';
export { stokes2D, type StokesOptions } from './stokes.js';
