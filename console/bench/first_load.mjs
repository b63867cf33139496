// How long the console takes to load on loopback in headless Chromium:
// navigation start to the load event, and to the editor being ready, the
// median of RUNS page loads against a running stratad.
// Usage: node console/bench/first_load.mjs http://127.0.0.1:7879/ [RUNS]
import { chromium } from 'playwright-core';

const url = process.argv[2] || 'http://127.0.0.1:7879/';
const runs = Number(process.argv[3] || 5);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'],
});
const loads = [];
const ready = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext();  // a cold cache each time
  const page = await context.newPage();
  const started = Date.now();
  await page.goto(url);
  await page.waitForSelector('.cm-content');
  ready.push(Date.now() - started);
  loads.push(await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd));
  await context.close();
}
await browser.close();
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`load event ${median(loads).toFixed(0)} ms, editor ready ${median(ready)} ms ` +
  `(median of ${runs}; loads ${loads.map((x) => x.toFixed(0)).join(', ')} ms)`);
