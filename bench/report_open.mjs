// Opens a Doublet report from disk in headless Chromium and times what a reader
// waits for: the ranked pairs, the top pair side by side, the overview again.
// Prints JSON. Used by bench/report.py; needs tests/vscode-e2e/setup.sh's tools.
//
//   node bench/report_open.mjs report.html

import { pathToFileURL } from 'node:url';
import { launchBrowser } from '../tests/vscode-e2e/harness.mjs';

const file = process.argv[2];
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const timed = async (action) => {
    const started = Date.now();
    await action();
    return Date.now() - started;
  };
  const overview = await timed(async () => {
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('#pairs tbody tr');
  });
  // in the page: from the route's change to the frame after it is drawn
  const inPage = (hash) => page.evaluate((target) => new Promise((resolve) => {
    const started = performance.now();
    window.addEventListener('hashchange', () => requestAnimationFrame(() => requestAnimationFrame(
      () => resolve(Math.round(performance.now() - started)))), { once: true });
    location.hash = target;
  }), hash);
  const loaded = await page.evaluate(() => {
    const timing = performance.getEntriesByType('navigation')[0];
    return { dom_content_loaded_ms: Math.round(timing.domContentLoadedEventEnd), load_ms: Math.round(timing.loadEventEnd) };
  });
  const pair = await inPage('#/pair/1');
  const back = await inPage('#/');
  const threshold = await page.evaluate(() => new Promise((resolve) => {
    const slider = document.getElementById('threshold');
    const started = performance.now();
    slider.value = '0.2';
    slider.dispatchEvent(new Event('input'));
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(Math.round(performance.now() - started))));
  }));
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heap = metrics.find((m) => m.name === 'JSHeapUsedSize').value;
  console.log(JSON.stringify({
    open_to_pairs_ms: overview,
    ...loaded,
    pair_ms: pair,
    back_to_overview_ms: back,
    threshold_to_20_percent_ms: threshold,
    js_heap_mb: Math.round(heap / 1e5) / 10,
    errors,
  }));
} finally {
  await browser.close();
}
