#!/bin/bash
# bundle.sh <tree> <out.mjs>: entry.ts over the tree's library (wasm embedded)
set -eu
d=$(dirname "$0")
sed "s#TREE#$1#g" "$d/entry.ts" > "$1/.amg16-entry.ts"
(cd "$1" && npx esbuild .amg16-entry.ts --bundle --platform=node --format=esm --target=es2022 --external:webgpu --external:playwright-core --external:puppeteer-core --external:selenium-webdriver --log-level=warning --outfile="$2" --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);")
rm "$1/.amg16-entry.ts"
