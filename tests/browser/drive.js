// Open a hoplab view page in Debian's Chromium (/usr/bin/chromium, driven
// by playwright-core, which never downloads a browser) and report what it
// shows, for tests/python/test_view.py.
//
//   node drive.js PAGE.html PLAN.json  ->  one JSON object on stdout
//
// PLAN: {"width": W, "height": H, "steps": [{"seek": t, "select": {...}?,
// "play_ms": n?, "screenshot": "file.png"?}, ...]}; each step's anim.state()
// is reported, with the console errors and uncaught exceptions of the page.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function main() {
  const [page_, planFile] = process.argv.slice(2);
  const plan = JSON.parse(fs.readFileSync(planFile, 'utf8'));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: FLAGS });
  const out = { console_errors: [], page_errors: [], requests: [], steps: [] };
  try {
    const page = await browser.newPage({ viewport: { width: plan.width || 1400, height: plan.height || 900 } });
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') out.console_errors.push(m.type() + ': ' + m.text()); });
    page.on('pageerror', (e) => out.page_errors.push(String(e)));
    page.on('request', (r) => { if (!r.url().startsWith('file:')) out.requests.push(r.url()); });
    await page.goto('file://' + path.resolve(page_), { waitUntil: 'load' });
    await page.waitForFunction(() => window.anim !== undefined, null, { timeout: 30000 });
    out.shown = await page.evaluate(() => ({
      nodes: document.getElementById('node-count').textContent,
      frames: document.getElementById('frame-count').textContent,
      drops: document.getElementById('drop-count').textContent,
      flows: document.querySelectorAll('#flows li[data-flow]').length,
      legend: document.getElementById('legend').textContent,
    }));
    for (const step of plan.steps || []) {
      if (step.select) await page.evaluate((s) => window.anim.select(s), step.select);
      if (step.seek !== undefined) await page.evaluate((t) => window.anim.seek(t), step.seek);
      if (step.play_ms) {
        await page.evaluate(() => window.anim.play());
        await page.waitForTimeout(step.play_ms);
        await page.evaluate(() => window.anim.pause());
      }
      if (step.click_node !== undefined) {
        // a click where the page draws the node: what a user does
        const box = await page.locator('#map').boundingBox();
        const xy = await page.evaluate((n) => window.anim.screen_xy(n), step.click_node);
        await page.mouse.click(box.x + xy[0], box.y + xy[1]);
      }
      const state = await page.evaluate(() => window.anim.state());
      const info = await page.evaluate(() => document.getElementById('info').textContent);
      if (step.screenshot) await page.screenshot({ path: step.screenshot, fullPage: true });
      out.steps.push({ state, info });
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
