// Defects a new user hits first (issue 16), part 3: "?" shows a help listing every shortcut; "/"
// and Ctrl+F put the focus in the search box of the view shown; the datasets sidebar collapses;
// the trace has a hover tooltip (time, function, depth, row) and a crosshair the keyboard places
// and moves, whose call path opens from the keyboard; at 800x600 the trace canvas and the tables
// get usable room. Screenshots of the views at 1600x1000 and 800x600 go to target/screenshots/.
// On corpus data when ../shared is there, and on generated data always.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { start, showProfile, dropSelect, screenshot, hasCorpus, CORPUS, showTrace } from './helpers.mjs';
import { generated, corpusOrSynth } from './generated.mjs';

const WITH_CORPUS = hasCorpus();
if (!WITH_CORPUS) console.log(`${CORPUS} absent: generated datasets only`);
const corpus = (rel) => path.join(CORPUS, rel);
const apps = [];
after(async () => {
  for (const a of apps) await a.close();
});
async function open(size) {
  const a = await start(size);
  apps.push(a);
  return a;
}

const focused = (page) => page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);

const traceDir = () => corpusOrSynth('hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d');

test('"?" lists every shortcut; "/" and Ctrl+F focus the search; the sidebar collapses', async () => {
  const { page, problems } = await open({ width: 1600, height: 1000 });
  await dropSelect(page, traceDir());
  await page.evaluate(() => window.hpcscope.showView('summary'));
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('?');
  const help = page.getByTestId('help');
  await help.waitFor({ state: 'visible' });
  const text = await help.innerText();
  for (const k of ['?', '/', 'Ctrl+F', '[', 'double click', 'Enter', 'Shift+wheel', 'drag', 'Escape', 'Home',
    'Ctrl+Z', 'Shift+← → ↑ ↓', 'PageUp', 'H', 'Alt+wheel', 'Delete']) {
    assert.ok(text.includes(k), `help lacks ${k}`);
  }
  await screenshot(page, 'ux-help-1600.png');
  await page.keyboard.press('Escape');
  await help.waitFor({ state: 'hidden' });
  // "/" from the Summary: the Profile view opens with its search box focused.
  await page.keyboard.press('/');
  await page.waitForFunction(() => document.activeElement?.dataset?.testid === 'search-input', null, { timeout: 15000 });
  assert.equal(await page.evaluate(() => window.hpcscope.state().view), 'profile');
  await page.keyboard.type('main');
  assert.equal(await page.inputValue('[data-testid="search-input"]'), 'main');
  await page.keyboard.press('Escape');
  assert.notEqual(await focused(page), 'search-input');
  // Ctrl+F from the flame graph.
  await showProfile(page);
  await page.getByTestId('flame-canvas').focus();
  await page.keyboard.press('Control+f');
  assert.equal(await focused(page), 'search-input');
  // In the Trace view, "/" goes to the row filter.
  await showTrace(page);
  await page.getByTestId('timeline-canvas').focus();
  await page.keyboard.press('/');
  assert.equal(await focused(page), 'timeline-filter');
  await page.keyboard.press('Escape');
  // The sidebar: the button and "[" hide and show it; hidden, the trace gets its width.
  const w0 = (await page.getByTestId('timeline-canvas').boundingBox()).width;
  await page.locator('#toggle-sidebar').click();
  await page.waitForFunction(() => !document.querySelector('.sidebar').offsetParent);
  await page.waitForTimeout(300);
  const w1 = (await page.getByTestId('timeline-canvas').boundingBox()).width;
  assert.ok(w1 >= w0 + 250, `trace canvas ${w0} -> ${w1} px with the sidebar hidden`);
  assert.equal(await page.locator('#toggle-sidebar').getAttribute('aria-expanded'), 'false');
  await page.getByTestId('timeline-canvas').focus();
  await page.keyboard.press('[');
  await page.waitForFunction(() => !!document.querySelector('.sidebar').offsetParent);
  assert.deepEqual(problems, []);
});

test('trace: hover tooltip, keyboard crosshair and call path', async () => {
  const { page, problems } = await open({ width: 1600, height: 1000 });
  const dirs = [traceDir(), generated('ufsynth'), ...(WITH_CORPUS ? [corpus('uftrace/recorded-cxx/uftrace.data')] : [])];
  for (const dir of dirs) {
    await dropSelect(page, dir);
    const t = await showTrace(page);
    const box = await page.getByTestId('timeline-canvas').boundingBox();
    // Hover in the middle of the first row: the tooltip names time, function, depth and row.
    const n = t.rows.last - t.rows.first + 1;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / n / 2);
    await page.waitForFunction(() => window.hpcscope.state().views.timeline.tooltip);
    const tip = await page.getByTestId('timeline-tooltip');
    assert.ok(await tip.isVisible());
    const tipText = await tip.innerText();
    assert.match(tipText, /time/);
    assert.match(tipText, /depth/);
    assert.ok(tipText.includes(t.rows.labels[0]), `${tipText} lacks ${t.rows.labels[0]}`);
    await screenshot(page, `ux-trace-tooltip-${path.basename(path.dirname(dir))}.png`);
    // The pointer leaves: the tooltip goes.
    await page.mouse.move(box.x + box.width / 2, box.y - 60);
    await page.waitForFunction(() => !window.hpcscope.state().views.timeline.tooltip);
    // Keyboard: Enter puts the crosshair in the middle and focuses its call path.
    await page.getByTestId('timeline-canvas').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.hpcscope.state().views.timeline.crosshair?.path);
    let c = (await page.evaluate(() => window.hpcscope.state().views.timeline)).crosshair;
    const mid = (t.time_range_ns[0] + t.time_range_ns[1]) / 2;
    assert.ok(Math.abs(c.time_ns - mid) < 1, `${c.time_ns} vs ${mid}`);
    assert.ok(t.rows.labels.includes(c.label));
    if (c.path.length) {
      await page.waitForFunction(() => document.activeElement?.closest('[data-testid="timeline-callpath"]'));
      // Down the path and Enter: that entry's depth colours the trace.
      await page.keyboard.press('End');
      await page.keyboard.press('Enter');
      await page.waitForFunction((d) => window.hpcscope.state().views.timeline.depth === d, c.path.length - 1);
      await page.keyboard.press('Escape');
      assert.equal(await focused(page), 'timeline-canvas');
    }
    // Shift+arrows move it: right in time, down a row.
    const t0 = c.time_ns;
    await page.keyboard.press('Shift+ArrowRight');
    // The crosshair state is null while its call path is asked for.
    await page.waitForFunction((x) => window.hpcscope.state().views.timeline.crosshair?.time_ns > x, t0);
    c = (await page.evaluate(() => window.hpcscope.state().views.timeline)).crosshair;
    const span = t.time_range_ns[1] - t.time_range_ns[0];
    assert.ok(Math.abs(c.time_ns - t0 - span / 50) < 2, `${c.time_ns - t0} vs ${span / 50}`);
    if (t.rows.total > 1) {
      const before = c.label;
      await page.keyboard.press('Shift+ArrowDown');
      await page.waitForFunction((l) => {
        const ch = window.hpcscope.state().views.timeline.crosshair;
        return ch && ch.label !== l;
      }, before);
    }
    await page.waitForFunction(() => window.hpcscope.state().views.timeline.crosshair?.path);
    const st = await page.evaluate(() => window.hpcscope.state().views.timeline);
    assert.ok(st.tooltip && st.tooltip.includes(st.crosshair.label), st.tooltip);
  }
  assert.deepEqual(problems, []);
});

/** Screenshots of each view at a size, and the room the trace and the tables get. */
async function viewsAt(width, height) {
  const { page, problems } = await open({ width, height });
  await dropSelect(page, traceDir());
  const tag = `${width}x${height}`;
  await page.evaluate(() => window.hpcscope.showView('summary'));
  await page.waitForTimeout(200);
  await screenshot(page, `ux-summary-${tag}.png`);
  await showProfile(page);
  const v = await page.evaluate(() => window.hpcscope.state().views.profile);
  const f = v.flame.frames.filter((x) => x.depth === 2).sort((a, b) => b.width - a.width)[0];
  await page.evaluate((node) => window.hpcscopeProfile.panels().select(node, 'test'), f.node);
  await page.waitForTimeout(400);
  await screenshot(page, `ux-profile-${tag}.png`);
  const rowsShown = await page.evaluate(() => {
    const s = document.querySelector('.tt-scroll').getBoundingClientRect();
    return Array.from(document.querySelectorAll('.tt-row')).filter((r) => {
      const b = r.getBoundingClientRect();
      return b.top >= s.top && b.bottom <= s.bottom + 1;
    }).length;
  });
  const flameH = (await page.getByTestId('flame-canvas').boundingBox()).height;
  const t = await showTrace(page);
  await page.waitForTimeout(300);
  await screenshot(page, `ux-trace-${tag}.png`);
  const canvas = await page.getByTestId('timeline-canvas').boundingBox();
  assert.deepEqual(problems, []);
  return { page, rowsShown, flameH, canvas, t };
}

test('at 1600x1000 and at 800x600 the trace canvas and the tables get usable room', async () => {
  const big = await viewsAt(1600, 1000);
  assert.ok(big.canvas.width >= 750 && big.rowsShown >= 8, JSON.stringify({ canvas: big.canvas, rows: big.rowsShown }));
  const small = await viewsAt(800, 600);
  assert.ok(small.canvas.width >= 400, `trace canvas ${small.canvas.width} px wide at 800x600`);
  assert.ok(small.canvas.height >= 120, `trace canvas ${small.canvas.height} px high at 800x600`);
  assert.ok(small.rowsShown >= 4, `${small.rowsShown} table rows shown at 800x600`);
  assert.ok(small.flameH >= 90, `flame graph ${small.flameH} px high at 800x600`);
  // The whole page fits the window: nothing scrolls the body.
  const overflow = await small.page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
  assert.ok(overflow[0] <= 800 && overflow[1] <= 600, `page ${overflow} at 800x600`);
  // The sidebar starts hidden at that width, and the button brings it back.
  await small.page.locator('#toggle-sidebar').click();
  await small.page.waitForFunction(() => !!document.querySelector('.sidebar').offsetParent);
  await screenshot(small.page, 'ux-trace-800x600-sidebar.png');
});
