/* report.js: draws the gotrace report from the JSON in <script id="data"> (written by
 * decoder/report_page.c). Hand-written, no libraries; runs from a file with no network.
 * Sections: facts, timeline (canvas: rows per thread, zoom/pan, tooltips, wake-up edges,
 * details), thread table, flame graphs, tasks and regions, hangs (and a deadlock's banner at the
 * top), locks, critical path.
 * Invariant: the page names threads, states and reasons in a C programmer's words. */
'use strict';

const D = JSON.parse(document.getElementById('data').textContent);
const S = D.str;
const $ = (id) => document.getElementById(id);

/* Timeline kinds, in report_model.h's order (RK_*). */
const KINDS = [
  { name: 'running', color: '#3a9d4a' },
  { name: 'runnable (ready, waiting for a CPU)', color: '#efc43a' },
  { name: 'in a system call', color: '#8a5cd0' },
  { name: 'blocked on a lock, condition, barrier or join', color: '#d8483e' },
  { name: 'sleeping', color: '#86acd9' },
  { name: 'waiting for I/O readiness', color: '#33aebd' },
  { name: 'blocked (other)', color: '#9aa0a6' },
];
const BLOCKED = 3; /* kinds from here on are waits */

function fmt(ns) {
  if (ns < 1e3) return Math.round(ns) + ' ns';
  if (ns < 1e6) return (ns / 1e3).toFixed(2) + ' µs';
  if (ns < 1e9) return (ns / 1e6).toFixed(2) + ' ms';
  return (ns / 1e9).toFixed(3) + ' s';
}
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    if (k === 'text') e.textContent = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  for (const c of kids) e.append(c);
  return e;
}
function stackText(id) {
  return (S[id] || '').trim() || '(no stack)';
}

/* ---- threads ---- */
const T = D.threads.map((r, i) => ({
  i, name: r[0], id: r[1], tid: r[2], life: r[3], run: r[4], runnable: r[5], sys: r[6],
  wait: r[7], blocks: r[8], syscalls: r[9], samples: r[10], reasons: r[11],
  proc: r.length > 12 ? r[12] : 0, // a merged trace's: its process's rank (rows by process)
}));
const order = T.slice().sort((a, b) => a.proc - b.proc || a.id - b.id);

/* ---- facts ---- */
function facts() {
  $('file').textContent = D.file;
  document.title = 'gotrace report: ' + D.file;
  $('facts').textContent = `${T.length} threads, ${D.events.toLocaleString()} events in ` +
    `${D.generations} generations, ${fmt(D.duration)} traced.`;
}

/* ---- timeline data: per thread, its slices (indices into D.slices / 7) ---- */
const NF = 7;
const SL = D.slices || [];
const perThread = T.map(() => []);
for (let k = 0; k < SL.length; k += NF) perThread[SL[k]].push(k);
const regionsOf = T.map(() => []);
for (let k = 0; k < D.regions.length; k += 5) regionsOf[D.regions[k]].push(k);
const samplesOf = T.map(() => []);
for (let k = 0; k < D.samples.length; k += 3) if (D.samples[k] >= 0) samplesOf[D.samples[k]].push(k);

const LABEL_W = 230, AXIS_H = 26, ROW_H = 20, REG_H = 7;
const rows = []; /* {t, y, h} in display order */
let yAll = AXIS_H;
for (const t of order) {
  const h = ROW_H + (regionsOf[t.i].length ? REG_H + 1 : 0);
  rows.push({ t, y: yAll, h });
  yAll += h;
}
const rowOf = new Map(rows.map((r) => [r.t.i, r]));

const view = { t0: 0, t1: Math.max(D.duration, 1) };
let hover = null, selected = null, selectedWoke = [];
const canvas = $('tl');
const ctx = canvas.getContext('2d');

function width() { return canvas.clientWidth - LABEL_W; }
function xOf(t) { return LABEL_W + (t - view.t0) / (view.t1 - view.t0) * width(); }
function tOf(x) { return view.t0 + (x - LABEL_W) / width() * (view.t1 - view.t0); }

/* The canvas is as tall as the visible part of the rows (it stays at the top of #tl-wrap,
 * which scrolls over a spacer as tall as all rows): any number of threads fits. */
const wrap = $('tl-wrap');
let viewH = 0;
function top0() { return wrap.scrollTop; }
function resize() {
  const dpr = window.devicePixelRatio || 1;
  viewH = Math.min(yAll, Math.max(200, Math.floor(window.innerHeight * 0.7)));
  canvas.style.height = viewH + 'px';
  wrap.style.maxHeight = (viewH + 2) + 'px';
  $('tl-space').style.height = (yAll - viewH) + 'px';
  canvas.width = Math.max(1, Math.floor(canvas.clientWidth * dpr));
  canvas.height = Math.floor(viewH * dpr);
  draw();
}
function visible(r) { return r.y + r.h > top0() + AXIS_H && r.y < top0() + viewH; }

/* First slice of list (indices, time order) that ends after t. */
function firstAfter(list, t) {
  let lo = 0, hi = list.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    const k = list[m];
    if (SL[k + 1] + SL[k + 2] < t) lo = m + 1; else hi = m;
  }
  return lo;
}

function drawSlices(r) {
  const list = perThread[r.t.i];
  let lastPx = -1;
  for (let n = firstAfter(list, view.t0); n < list.length; n++) {
    const k = list[n];
    const s = SL[k + 1], e = s + SL[k + 2];
    if (s > view.t1) break;
    const x0 = Math.max(LABEL_W, xOf(s)), x1 = Math.min(LABEL_W + width(), xOf(e));
    if (x1 - x0 < 1 && Math.floor(x0) === lastPx) continue;
    lastPx = Math.floor(x0);
    ctx.fillStyle = KINDS[SL[k + 3]].color;
    ctx.fillRect(x0, r.y + 2, Math.max(1, x1 - x0), ROW_H - 4);
  }
}

function drawBuckets(r) {
  const b = D.buckets[r.t.i];
  if (!b) return;
  const [first, s] = b;
  for (let j = 0; j < s.length; j++) {
    if (s[j] === '.') continue;
    const t = (first + j) * D.width;
    if (t + D.width < view.t0 || t > view.t1) continue;
    const x0 = Math.max(LABEL_W, xOf(t)), x1 = Math.min(LABEL_W + width(), xOf(t + D.width));
    ctx.fillStyle = KINDS[s.charCodeAt(j) - 97].color;
    ctx.fillRect(x0, r.y + 2, Math.max(1, x1 - x0), ROW_H - 4);
  }
}

function hue(id) { return (id * 137) % 360; }

function drawRegions(r) {
  const y = r.y + ROW_H;
  for (const k of regionsOf[r.t.i]) {
    const R = D.regions;
    const s = R[k + 1], e = s + R[k + 2];
    if (e < view.t0 || s > view.t1) continue;
    const x0 = Math.max(LABEL_W, xOf(s)), x1 = Math.min(LABEL_W + width(), xOf(e));
    ctx.fillStyle = `hsl(${hue(R[k + 3])} 45% 62%)`;
    ctx.fillRect(x0, y, Math.max(1, x1 - x0), REG_H);
  }
}

function drawSamples(r) {
  ctx.fillStyle = '#1d232b';
  for (const k of samplesOf[r.t.i]) {
    const t = D.samples[k + 1];
    if (t < view.t0 || t > view.t1) continue;
    ctx.fillRect(xOf(t) - 0.5, r.y, 1.5, 4);
  }
}

function niceStep(span, px) {
  const raw = span / Math.max(1, px / 110);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function drawAxis() {
  const w = width();
  ctx.fillStyle = '#f5f7f9';
  ctx.fillRect(0, 0, LABEL_W + w, AXIS_H);
  const step = niceStep(view.t1 - view.t0, w);
  ctx.fillStyle = '#5c6670';
  ctx.strokeStyle = '#e3e7eb';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    const x = xOf(t);
    ctx.fillText(fmt(t), x + 3, AXIS_H / 2);
    ctx.beginPath();
    ctx.moveTo(x + 0.5, AXIS_H - 6);
    ctx.lineTo(x + 0.5, viewH);
    ctx.stroke();
  }
}

function drawLabels() {
  ctx.font = '12px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const sel = selected !== null ? T[SL[selected]] : null;
  for (const r of rows) {
    if (!visible(r)) continue;
    ctx.fillStyle = r.t === sel ? '#e6eef7' : '#ffffff';
    ctx.fillRect(0, r.y, LABEL_W, r.h);
    ctx.fillStyle = '#1d232b';
    const label = r.t.name + (r.t.tid >= 0 ? '  ·  ' + r.t.tid : '');
    ctx.fillText(label.length > 34 ? label.slice(0, 33) + '…' : label, 6, r.y + ROW_H / 2);
    ctx.fillStyle = '#eef1f4';
    ctx.fillRect(0, r.y + r.h - 1, LABEL_W + width(), 1);
  }
}

/* An arrow from the waker's row to the wakee's row at the time of the wake-up. */
function drawEdge(k, color) {
  const waker = SL[k + 6];
  if (waker < 0) return;
  const t = SL[k + 1] + SL[k + 2];
  const from = rowOf.get(waker), to = rowOf.get(SL[k]);
  if (!from || !to || t < view.t0 || t > view.t1) return;
  const x = xOf(t), y0 = from.y + ROW_H / 2, y1 = to.y + ROW_H / 2;
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(x, y0, 3, 0, 2 * Math.PI);
  ctx.fill();
  ctx.beginPath();
  ctx.moveTo(x, y0);
  ctx.lineTo(x, y1);
  ctx.stroke();
  const d = y1 > y0 ? -1 : 1;
  ctx.beginPath();
  ctx.moveTo(x, y1);
  ctx.lineTo(x - 5, y1 + 8 * d);
  ctx.lineTo(x + 5, y1 + 8 * d);
  ctx.fill();
  ctx.lineWidth = 1;
}

function outline(k, color) {
  const r = rowOf.get(SL[k]);
  const x0 = xOf(SL[k + 1]), x1 = xOf(SL[k + 1] + SL[k + 2]);
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.strokeRect(Math.max(LABEL_W, x0), r.y + 1, Math.max(2, Math.min(LABEL_W + width(), x1) - Math.max(LABEL_W, x0)), ROW_H - 2);
  ctx.lineWidth = 1;
}

function draw() {
  const dpr = window.devicePixelRatio || 1, off = top0();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, canvas.clientWidth, viewH);
  ctx.translate(0, -off); /* rows in content coordinates */
  ctx.save();
  ctx.beginPath();
  ctx.rect(LABEL_W, off + AXIS_H, width(), viewH - AXIS_H);
  ctx.clip();
  for (const r of rows) {
    if (!visible(r)) continue;
    if (D.bucketed) drawBuckets(r); else drawSlices(r);
    drawRegions(r);
    drawSamples(r);
  }
  if (selected !== null) {
    outline(selected, '#1d232b');
    drawEdge(selected, '#1d232b');
    for (const k of selectedWoke) drawEdge(k, '#2a6fb0');
  }
  if (hover !== null && hover !== selected) {
    outline(hover, '#2a6fb0');
    drawEdge(hover, '#2a6fb0');
  }
  ctx.restore();
  drawLabels();
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  drawAxis();
}

/* Waits the thread of slice k ended while it ran in k. */
function wokenBy(k) {
  const out = [], g = SL[k], s = SL[k + 1], e = s + SL[k + 2];
  for (let j = 0; j < SL.length; j += NF) {
    const t = SL[j + 1] + SL[j + 2];
    if (SL[j + 6] === g && t >= s && t <= e) out.push(j);
  }
  return out.slice(0, 200);
}

function rowAt(y) {
  for (const r of rows) if (y >= r.y && y < r.y + r.h) return r;
  return null;
}

function sliceAt(x, y) {
  if (D.bucketed || x < LABEL_W) return null;
  const r = rowAt(y);
  if (!r || y > r.y + ROW_H) return null;
  const t = tOf(x), slop = (view.t1 - view.t0) / width() * 2;
  const list = perThread[r.t.i];
  let best = null;
  for (let n = firstAfter(list, t - slop); n < list.length; n++) {
    const k = list[n];
    if (SL[k + 1] > t + slop) break;
    if (best === null || SL[k + 2] > SL[best + 2]) best = k;
    if (SL[k + 1] <= t && SL[k + 1] + SL[k + 2] >= t) return k;
  }
  return best;
}

function describe(k) {
  const kind = SL[k + 3];
  let what = KINDS[kind].name;
  if (kind >= BLOCKED && S[SL[k + 4]]) what = 'blocked: ' + S[SL[k + 4]];
  return what;
}

function tipText(k) {
  let s = `${T[SL[k]].name}\n${describe(k)}\n${fmt(SL[k + 2])} from ${fmt(SL[k + 1])}`;
  if (SL[k + 6] >= 0) s += `\nwoken by ${who(SL[k + 6])}`;
  return s;
}

function bucketTip(x, y) {
  const r = rowAt(y);
  if (!r || x < LABEL_W || !D.buckets[r.t.i]) return null;
  const j = Math.floor(tOf(x) / D.width), [first, s] = D.buckets[r.t.i];
  const c = s[j - first];
  if (!c || c === '.') return null;
  return `${r.t.name}\nmostly ${KINDS[c.charCodeAt(0) - 97].name}\nfrom ${fmt(j * D.width)} for ${fmt(D.width)}`;
}

/* A thread by name and id (threads of one start routine share the name). */
function who(i) { return `${T[i].name} (id ${T[i].id})`; }

function showDetails(k) {
  const box = $('details');
  box.replaceChildren(el('h3', { text: 'Details' }));
  if (k === null) {
    box.append(el('p', { text: 'Click an interval of the timeline.' }));
    return;
  }
  const dl = el('dl');
  const add = (a, b) => dl.append(el('dt', { text: a }), el('dd', {}, b));
  const t = T[SL[k]];
  add('thread', `${t.name} (id ${t.id}${t.tid >= 0 ? ', TID ' + t.tid : ''})`);
  add('state', describe(k));
  add('start', fmt(SL[k + 1]));
  add('duration', fmt(SL[k + 2]));
  if (SL[k + 3] >= BLOCKED)
    add('woken by', SL[k + 6] >= 0 ? `${who(SL[k + 6])} at ${fmt(SL[k + 1] + SL[k + 2])}`
      : 'no thread (or still waiting at the end of the trace)');
  const woke = selectedWoke;
  if (woke.length) add('woke', woke.map((j) => who(SL[j])).join(', '));
  const label = SL[k + 3] >= BLOCKED ? 'waiting call' : SL[k + 3] === 2 ? 'system call'
    : SL[k + 3] === 1 ? 'made runnable at' : 'started at';
  add(label, el('pre', { class: 'stack', text: stackText(SL[k + 5]) }));
  box.append(dl);
}

/* Selects slice k (or nothing): outline, edges, details, and a link to it in the address. */
function select(k) {
  selected = k;
  selectedWoke = k !== null ? wokenBy(k) : [];
  showDetails(k);
  if (k !== null) history.replaceState(null, '', `#select=${T[SL[k]].id}@${SL[k + 1]}`);
  draw();
}

/* Links: #view=T0-T1 shows that time range, #select=ID@T the interval of thread ID at time T
 * (ns from the start of the trace). */
function fromHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  const v = (h.get('view') || '').split('-').map(Number);
  if (v.length === 2 && v[1] > v[0]) setView(v[0], v[1]);
  const m = /^(\d+)@(\d+)$/.exec(h.get('select') || '');
  const t = m && T.find((x) => x.id === Number(m[1]));
  if (!t || D.bucketed) return;
  const list = perThread[t.i], n = firstAfter(list, Number(m[2]));
  if (n < list.length) select(list[n]);
}

function setView(t0, t1) {
  const min = 100, span = Math.max(min, t1 - t0), total = Math.max(D.duration, 1);
  if (span >= total) { view.t0 = 0; view.t1 = total; } else {
    view.t0 = Math.min(Math.max(0, t0), total - span);
    view.t1 = view.t0 + span;
  }
  draw();
}
function zoom(f, x) {
  const t = x === undefined ? (view.t0 + view.t1) / 2 : tOf(Math.max(LABEL_W, x));
  setView(t - (t - view.t0) * f, t + (view.t1 - t) * f);
}
function pan(frac) {
  const d = (view.t1 - view.t0) * frac;
  setView(view.t0 + d, view.t1 + d);
}

function timelineEvents() {
  const tip = $('tip');
  let drag = null;
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan((e.deltaX || e.deltaY) / 800);
    else zoom(Math.pow(1.0015, e.deltaY), e.offsetX);
  }, { passive: false });
  canvas.addEventListener('mousedown', (e) => {
    drag = { x: e.clientX, t0: view.t0, t1: view.t1, moved: false };
    canvas.classList.add('dragging');
  });
  window.addEventListener('mouseup', () => { canvas.classList.remove('dragging'); });
  canvas.addEventListener('click', (e) => {
    if (drag && drag.moved) { drag = null; return; }
    drag = null;
    select(sliceAt(e.offsetX, e.offsetY + top0()));
  });
  canvas.addEventListener('mousemove', (e) => {
    if (drag && e.buttons) {
      const dt = (e.clientX - drag.x) / width() * (drag.t1 - drag.t0);
      if (Math.abs(e.clientX - drag.x) > 3) drag.moved = true;
      setView(drag.t0 - dt, drag.t1 - dt);
      return;
    }
    const y = e.offsetY + top0();
    const k = y < top0() + AXIS_H ? null : sliceAt(e.offsetX, y);
    const text = k !== null ? tipText(k) : D.bucketed ? bucketTip(e.offsetX, y) : null;
    if (k !== hover) { hover = k; draw(); }
    tip.hidden = !text;
    if (text) {
      tip.textContent = text;
      tip.style.left = e.clientX + 14 + 'px';
      tip.style.top = e.clientY + 14 + 'px';
    }
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; hover = null; draw(); });
  $('tl-wrap').addEventListener('keydown', (e) => {
    const keys = {
      w: () => zoom(0.7), '+': () => zoom(0.7), '=': () => zoom(0.7), s: () => zoom(1 / 0.7),
      '-': () => zoom(1 / 0.7), a: () => pan(-0.2), ArrowLeft: () => pan(-0.2), d: () => pan(0.2),
      ArrowRight: () => pan(0.2), 0: () => setView(0, D.duration),
    };
    if (keys[e.key]) { keys[e.key](); e.preventDefault(); }
  });
  window.addEventListener('resize', resize);
  wrap.addEventListener('scroll', draw);
}

function legend() {
  for (const k of KINDS) {
    $('legend').append(el('span', {}, el('i', { style: 'background:' + k.color }), k.name));
  }
  $('legend').append(el('span', {}, el('i', { style: 'background:hsl(200 45% 62%);height:5px' }), 'user region (below its thread)'));
  $('legend').append(el('span', {}, el('i', { style: 'background:#1d232b;width:2px' }), 'CPU sample'));
  const notes = [];
  if (D.bucketed)
    notes.push(`This trace has ${D.nslices.toLocaleString()} intervals, more than the page ` +
      `draws one by one (${D.budget.toLocaleString()}): the timeline is aggregated, showing for ` +
      `each thread the state it spent most time in during each ${fmt(D.width)} of the trace ` +
      `(one bucket per pixel or more). Wake-ups and the details of single intervals are left ` +
      `out; the tables and flame graphs below count every interval. For full detail open ` +
      `the trace in go tool trace, or cut it shorter.`);
  if (D.nregions > D.region_budget)
    notes.push(`Only the first ${D.region_budget.toLocaleString()} of ${D.nregions.toLocaleString()} user regions are drawn.`);
  if (D.nsamples > D.sample_budget)
    notes.push(`Only the first ${D.sample_budget.toLocaleString()} of ${D.nsamples.toLocaleString()} CPU samples are drawn (the CPU flame graph has them all).`);
  if (notes.length) {
    $('scale-note').hidden = false;
    $('scale-note').textContent = notes.join(' ');
  }
}

/* ---- thread table (as `gotrace summary`) ---- */
function threadTable() {
  const tab = $('thread-table');
  const head = ['thread', 'id', 'TID', 'lifetime', 'running', 'runnable', 'system calls',
    'blocked', 'blocks', 'syscalls', 'CPU samples'];
  tab.append(el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h })))));
  const body = el('tbody');
  const tot = [0, 0, 0, 0, 0, 0, 0, 0];
  for (const t of order) {
    const v = [fmt(t.life), fmt(t.run), fmt(t.runnable), fmt(t.sys), fmt(t.wait), t.blocks,
      t.syscalls, t.samples];
    body.append(el('tr', {}, ...[t.name, t.id, t.tid >= 0 ? t.tid : '-', ...v].map((x) => el('td', { text: String(x) }))));
    [t.life, t.run, t.runnable, t.sys, t.wait, t.blocks, t.syscalls, t.samples].forEach((x, i) => { tot[i] += x; });
    for (let r = 0; r < t.reasons.length; r += 3) {
      const name = S[t.reasons[r]] || '(no reason)';
      body.append(el('tr', { class: 'reason' }, el('td', { text: 'blocked on ' + name }),
        el('td', { colspan: '6', text: '' }), el('td', { text: fmt(t.reasons[r + 1]) }),
        el('td', { text: t.reasons[r + 2] + ' waits' }), el('td', { colspan: '2' })));
    }
  }
  body.append(el('tr', { class: 'total' }, el('td', { text: `total (${T.length} threads)` }),
    el('td'), el('td'), ...tot.map((x, i) => el('td', { text: String(i < 5 ? fmt(x) : x) }))));
  tab.append(body);
}

/* ---- flame graphs ---- */
const PROFILES = [
  { name: 'Blocked on locks and conditions', kind: 0, unit: 'ns', none: 'No thread blocked on a lock, condition variable, semaphore, barrier or join.' },
  { name: 'System calls', kind: 1, unit: 'ns', none: 'No system call took long enough to be traced.' },
  { name: 'Waiting for I/O readiness', kind: 2, unit: 'ns', none: 'No thread waited in poll/select/epoll.' },
  { name: 'Scheduler latency', kind: 3, unit: 'ns', none: 'No thread waited to be scheduled.' },
  { name: 'CPU samples', kind: 4, unit: 'samples', none: 'No CPU samples: trace with GOTRACE_CPU_HZ=100 to get them.' },
];

// A line of a stack text (decoder/trace/stacktext.h): "func file:line", "func (module)" for a
// frame without a line, or "func" alone; a function's name may hold spaces (C++).
function frameParts(f) {
  const m = /^(.*) (\([^()]*\)|\S*:\d+)$/.exec(f);
  return m ? { name: m[1], file: m[2] } : { name: f, file: '' };
}

function flameTree(kind) {
  const root = { name: 'all', file: '', v: 0, n: 0, kids: new Map() };
  const P = D.prof;
  for (let k = 0; k < P.length; k += 4) {
    if (P[k] !== kind) continue;
    const v = kind === 4 ? P[k + 2] : P[k + 3];
    const frames = (S[P[k + 1]] || '').split('\n').filter((f) => f).reverse();
    let node = root;
    root.v += v;
    root.n += P[k + 2];
    for (const f of frames) {
      let c = node.kids.get(f);
      if (!c) { c = { ...frameParts(f), v: 0, n: 0, kids: new Map() }; node.kids.set(f, c); }
      c.v += v;
      c.n += P[k + 2];
      node = c;
    }
  }
  return root;
}

function flameColor(name) {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `hsl(${20 + h % 40} ${60 + h % 25}% ${62 + h % 12}%)`;
}

function drawFlame(p, root, focus) {
  const box = $('flame');
  box.replaceChildren();
  const path = focus.path || [root];
  const total = path[path.length - 1].v;
  const valueText = (n) => p.unit === 'ns' ? `${fmt(n.v)}, ${n.n} intervals` : `${n.v} samples`;
  let depth = 0;
  const add = (n, x, w, parents) => {
    if (w < 0.0015) return;
    const d = el('div', { title: `${n.name} ${n.file}\n${valueText(n)} (${(100 * n.v / root.v).toFixed(1)}% of all)` });
    d.textContent = n.name;
    d.style.left = (100 * x) + '%';
    d.style.width = `calc(${100 * w}% - 1px)`;
    d.style.top = (18 * depth) + 'px';
    d.style.background = n === root ? '#d6dbe0' : flameColor(n.name);
    d.addEventListener('click', () => drawFlame(p, root, { path: parents.concat([n]) }));
    box.append(d);
  };
  /* the focused path, full width */
  for (let i = 0; i < path.length; i++) {
    add(path[i], 0, 1, path.slice(0, i));
    depth++;
  }
  let level = [{ n: path[path.length - 1], x: 0, w: 1, parents: path }];
  while (level.length) {
    const next = [];
    for (const { n, x, w, parents } of level) {
      let cx = x;
      const kids = [...n.kids.values()].sort((a, b) => b.v - a.v);
      for (const c of kids) {
        const cw = total ? w * c.v / n.v : 0;
        add(c, cx, cw, parents);
        if (cw >= 0.0015) next.push({ n: c, x: cx, w: cw, parents: parents.concat([c]) });
        cx += cw;
      }
    }
    if (next.length) depth++;
    level = next;
    if (depth > 200) break;
  }
  box.style.height = (18 * (depth + 1) + 4) + 'px';
}

function flames() {
  const tabs = $('flame-tabs');
  const buttons = PROFILES.map((p) => {
    const root = flameTree(p.kind);
    const b = el('button', { role: 'tab', 'aria-selected': 'false', text: `${p.name} (${p.unit === 'ns' ? fmt(root.v) : root.v})` });
    b.addEventListener('click', () => {
      for (const o of buttons) o.b.setAttribute('aria-selected', String(o.b === b));
      $('flame-note').textContent = root.v ? '' : p.none;
      $('flame-note').hidden = !!root.v;
      drawFlame(p, root, {});
    });
    tabs.append(b);
    return { b, root };
  });
  const first = buttons.find((x) => x.root.v) || buttons[0];
  first.b.click();
}

/* ---- tasks and regions ---- */
function chunks(flat, n) {
  const out = [];
  for (let k = 0; k < flat.length; k += n) out.push(flat.slice(k, k + n));
  return out;
}
function table(head, rowsOfCells) {
  return el('table', {}, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { text: h })))),
    el('tbody', {}, ...rowsOfCells.map((r) => el('tr', {}, ...r.map((c) => el('td', { text: String(c) }))))));
}
function annotations() {
  const box = $('tasks');
  if (!D.tasks.length && !D.regionsum.length) {
    box.append(el('p', { text: 'This trace has no user tasks or regions (see include/gotrace.h to mark them).' }));
    return;
  }
  const byNs = (a, b) => b[3] - a[3] || b[1] - a[1];
  const tasks = chunks(D.tasks, 4), regions = chunks(D.regionsum, 4);
  if (D.tasks.length)
    box.append(el('h3', { text: 'User tasks' }), table(['task', 'begun', 'ended', 'total', 'average'],
      tasks.sort(byNs).map((t) => [S[t[0]], t[1], t[2], fmt(t[3]), fmt(t[2] ? t[3] / t[2] : 0)])));
  if (D.regionsum.length)
    box.append(el('h3', { text: 'User regions' }), table(['region', 'count', 'total', 'average'],
      regions.sort(byNs).map((r) => [S[r[0]], r[1], fmt(r[3]), fmt(r[1] ? r[3] / r[1] : 0)])));
}

/* ---- locks and the critical path (docs/locks.md) ---- */
const pct = (v, all) => (all ? (100 * v / all).toFixed(1) : '0.0') + ' %';
function stackPre(text) {
  return el('pre', { class: 'stack', text: (text || '').trim() || '(no stack)' });
}
function lockSection() {
  const box = $('locks-text');
  if (!D.locks) {
    box.textContent = 'No thread waited on a lock, condition variable, semaphore, barrier or ' +
      'join in this trace.';
    return;
  }
  box.textContent = (D.holders ? 'Each object threads waited on, by total wait; who held it while ' +
    'they waited (the wait is split among the holders: each release ends a part), and where.'
    : 'Each object threads waited on, by total wait. This trace does not record who held them ' +
    '(traces written by libgotrace.so do).') + ' Nothing holds a condition variable, semaphore, ' +
    'barrier or futex word not known to be a lock\'s: its waits go to the thread that signalled, ' +
    'posted, arrived last or woke them, or ended themselves. The same as gotrace locks --holders.';
  /* l[4]'s entries name who in the object's words (held by, signalled by, ...; report_page.c) */
  const rows = D.locks.map((l) => {
    const top = l[4].slice().sort((a, b) => b[1] - a[1])[0];
    return [l[0], l[1], fmt(l[2]), fmt(l[1] ? l[2] / l[1] : 0), fmt(l[3]),
      top ? `${top[0]} (${pct(top[1], l[2])})` : '–'];
  });
  const sec = $('locks');
  sec.append(table(['object', 'waits', 'total', 'average', 'longest', 'most of the wait'], rows));
  for (const l of D.locks.slice(0, 10)) {
    const d = el('details', {}, el('summary', { text: `${l[0]}: ${l[1]} waits, ${fmt(l[2])}` }));
    for (const w of l[5].slice().sort((a, b) => b[2] - a[2]).slice(0, 3))
      d.append(el('p', { text: `waited ${w[1]} times, ${fmt(w[2])}, at:` }), stackPre(w[0]));
    for (const h of l[4].slice().sort((a, b) => b[1] - a[1]))
      d.append(el('p', { text: `${h[0]}: ${fmt(h[1])} of the wait (${pct(h[1], l[2])}) ` +
        `in ${h[2]} waits${h[3] ? `, ${l[6]} at:` : ''}` }), ...(h[3] ? [stackPre(h[3])] : []));
    sec.append(d);
  }
}
function criticalSection() {
  const box = $('critical-text'), P = D.critical_path;
  if (!P) {
    box.textContent = 'Not computed: ' + (D.critical_note || 'no data') + '. gotrace critical-path ' +
      'computes it for any trace.';
    return;
  }
  const all = P.to - P.from;
  box.textContent = `The chain of work the end of ${P.thread} waited for: from its end, back ` +
    'through the threads that woke it (and released the locks it waited for), as gotrace ' +
    `critical-path prints it: ${fmt(all)} in ${P.nsegments} segments.`;
  const sec = $('critical');
  sec.append(el('h3', { text: 'By thread' }),
    table(['share', 'time', 'thread'], P.threads.map((t) => [pct(t[1], all), fmt(t[1]), t[0]])),
    el('h3', { text: 'By function' }),
    table(['share', 'time', 'function'], P.funcs.slice(0, 20).map((f) => [pct(f[1], all), fmt(f[1]), f[0]])));
  const segs = el('details', {}, el('summary', { text: `Segments (${P.nsegments}` +
    (P.nsegments > P.segments.length ? `, the first ${P.segments.length} shown)` : ')') }),
  table(['start', 'duration', 'state', 'thread', 'reason', 'where'],
    P.segments.map((g) => [fmt(g[2]), fmt(g[3]), g[1], g[0], g[4], g[5] + (g[6] ? ' (' + g[6] + ')' : '')])));
  /* A wait the walk could not follow further (its holder waits for it, or exited) ends it. */
  const stop = P.segments.find((g) => g[6]);
  if (stop)
    box.textContent += ` ${P.thread} waits at its end, and the path follows the holders of what it ` +
      `waits for until ${stop[0]}, ${stop[4]}: ${stop[6]}.`;
  sec.append(segs);
}

/* ---- hangs: the threads blocked at the end of the trace and the deadlocks (gotrace hangs) ---- */
function memberText(m) { return `${m[0]} ${m[1]}${m[2] ? ' held by ' + m[2] : ''}`; }
function deadlockText(d) {
  const [kind, members, holder, exitedAt] = d;
  if (kind === 'cycle')
    return members.map((m) => `${m[0]} ${m[1]} held by`).join(' ') + ' ' + members[0][0];
  if (kind === 'exited')
    return members.map((m) => `${m[0]} ${m[1]}`).join('; ') +
      ` held by ${holder}, which exited at ${fmt(exitedAt)} holding it`;
  return 'no thread can make progress: ' + members.map(memberText).join('; ');
}
function hangsSection() {
  const H = D.hangs, box = $('hangs-text'), sec = $('hangs');
  if (!H) {
    box.textContent = 'Not computed. gotrace hangs computes it for any trace.';
    return;
  }
  box.textContent = H.nblocked ? `At the end of the trace (${fmt(H.at)}), ${H.nblocked} threads ` +
    'were blocked: what each waited on, who held it and what that holder was doing, as gotrace ' +
    'hangs prints it. A deadlock is said only of threads that can never move again: threads each ' +
    'waiting for a lock the next holds, waiters of a lock whose holder exited holding it, or every ' +
    'thread waiting, without a timeout, for another.'
    : 'No thread was blocked at the end of the trace.';
  for (const d of H.deadlocks) {
    const div = el('div', { class: 'alert' }, el('strong', { text: 'Deadlock: ' }), deadlockText(d));
    for (const b of d[4]) div.append(el('div', { text: 'behind it: ' + memberText(b) }));
    sec.append(div);
  }
  if (H.deadlocks.length) {
    const v = $('verdict');
    v.hidden = false;
    v.append(el('strong', { text: H.deadlocks.length === 1 ? 'Deadlock' : `${H.deadlocks.length} deadlocks` }),
      ' at the end of the trace: ' + deadlockText(H.deadlocks[0]) + '. ',
      el('a', { href: '#hangs', text: 'Hangs' }));
  }
  if (H.all_stuck && !H.deadlocks.some((d) => d[0] === 'all'))
    sec.append(el('p', { text: `No thread can make progress: the ${H.nlive} live threads each ` +
      'wait, without a timeout, for another.' }));
  else if (H.nstuck && !H.all_stuck)
    sec.append(el('p', { text: (H.deadlocks.length ? '' : 'No deadlock: ') + 'not every thread is ' +
      'stuck: ' + H.movers.map((m) => `${m[0]} ${m[1]}${m[2] ? ' (' + m[2] + ')' : ''}`).join('; ') +
      (H.nlive - H.nstuck > H.movers.length ? `; and ${H.nlive - H.nstuck - H.movers.length} more` : '') }));
  if (!H.blocked.length) return;
  sec.append(table(['thread', 'blocked', 'for', 'holder'],
    H.blocked.map((b) => [b[0], b[1], fmt(H.at - b[2]), b[4] || '–'])));
  if (H.nblocked > H.blocked.length)
    sec.append(el('p', { class: 'help', text: `The first ${H.blocked.length} of ${H.nblocked} blocked threads are listed.` }));
  for (const b of H.blocked.slice(0, 20)) {
    const det = el('details', {}, el('summary', { text: `${b[0]}: ${b[1]}` }), stackPre(b[3]));
    if (b[4]) det.append(el('p', { text: b[4] + (b[5] ? ', at:' : '') }), ...(b[5] ? [stackPre(b[5])] : []));
    sec.append(det);
  }
}

facts();
legend();
threadTable();
flames();
annotations();
hangsSection();
lockSection();
criticalSection();
timelineEvents();
resize();
fromHash();
document.body.setAttribute('data-rendered', 'yes');
/* ms from the start of loading to here: bench/decoder/report.sh reads it. */
document.body.setAttribute('data-render-ms', String(Math.round(performance.now())));
