// What the build scripts say about their work, e.g. "built 4 wasm variants": nothing under
// `npm run … --silent` (npm hands npm_config_loglevel=silent to the script), as `npm start` and
// `npm test` build, so that their own output is all a user sees; errors still go to stderr.
export const info = process.env.npm_config_loglevel === 'silent' ? () => {} : (message) => console.log(message);
