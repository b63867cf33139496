// Bundles the console into dist/ (index.html, app.js, app.css), which
// stratad embeds and serves at / and /console/ (server/http/console.cc).
// Usage: node build.mjs
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';

const here = new URL('.', import.meta.url).pathname;
mkdirSync(`${here}dist`, { recursive: true });
await build({
  entryPoints: { app: `${here}src/main.js` },
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome100', 'firefox100', 'safari15'],
  outdir: `${here}dist`,
  legalComments: 'none',
  logLevel: 'warning',
});
await build({
  entryPoints: { app: `${here}src/style.css` },
  bundle: true,
  minify: true,
  outdir: `${here}dist`,
  logLevel: 'warning',
});
copyFileSync(`${here}src/index.html`, `${here}dist/index.html`);
for (const name of ['index.html', 'app.js', 'app.css']) {
  console.log(`console: dist/${name} ${statSync(`${here}dist/${name}`).size} bytes`);
}
