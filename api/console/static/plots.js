// Lag and throughput over the last minutes, per group and per shard, drawn
// as inline SVG from what the page polls (the per-shard offsets route). The
// page keeps a ring buffer of samples per group; nothing is stored anywhere.
'use strict';

window.RSC = window.RSC || {};

(() => {
  const { h, svg } = window.RSC;
  const MAX_SAMPLES = 300;        // 5 minutes at one poll a second
  const WINDOW_MS = 5 * 60 * 1000; // the longest span shown
  const MIN_SPAN_MS = 60 * 1000;    // the shortest: a fresh page's first minute
  const W = 560, H = 150, PAD_L = 46, PAD_R = 8, PAD_T = 8, PAD_B = 20;
  const COLORS = ['#1f5fa8', '#b3261e', '#1f7a3d', '#9a6200', '#6b3fa0', '#00838f', '#ad1457', '#5d4037'];

  const rings = new Map(); // group key → {buf: [], next: 0}

  // sample records one poll of a group's offsets: per shard its lag and
  // entries read by the group (entriesRead), at time t (ms).
  function sample(key, offsets, t) {
    const shards = {};
    for (const s of (offsets && offsets.shards) || []) {
      shards[s.shardIndex] = { lag: s.lag, read: s.entriesRead, length: s.length };
    }
    let r = rings.get(key);
    if (!r) { r = { buf: [], next: 0 }; rings.set(key, r); }
    const smp = { t, shards };
    if (r.buf.length < MAX_SAMPLES) r.buf.push(smp);
    else { r.buf[r.next] = smp; r.next = (r.next + 1) % MAX_SAMPLES; }
  }

  // samples returns a group's samples, oldest first.
  function samples(key) {
    const r = rings.get(key);
    if (!r) return [];
    return r.buf.length < MAX_SAMPLES ? r.buf.slice() : r.buf.slice(r.next).concat(r.buf.slice(0, r.next));
  }

  // series turns samples into lines: "total" plus one per shard. Lag is a
  // level; throughput is entries read per second between two samples.
  function series(list, kind) {
    const lines = new Map();
    const add = (name, t, v) => {
      if (!lines.has(name)) lines.set(name, []);
      lines.get(name).push([t, v]);
    };
    for (let k = 0; k < list.length; k++) {
      const cur = list[k];
      let total = 0, any = false;
      for (const [i, s] of Object.entries(cur.shards)) {
        let v;
        if (kind === 'lag') {
          v = s.lag >= 0 ? s.lag : undefined;
        } else {
          const prev = k > 0 ? list[k - 1].shards[i] : undefined;
          const dt = k > 0 ? (cur.t - list[k - 1].t) / 1000 : 0;
          v = prev && prev.read >= 0 && s.read >= 0 && dt > 0 ? Math.max(0, (s.read - prev.read) / dt) : undefined;
        }
        if (v === undefined) continue;
        add('shard ' + i, cur.t, v);
        total += v;
        any = true;
      }
      if (any) add('total', cur.t, total);
    }
    return lines;
  }

  const fmt = (v) => (v >= 10000 ? (v / 1000).toFixed(0) + 'k' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2).replace(/\.?0+$/, '') || '0');

  // chart draws one SVG chart of lines over the last WINDOW_MS.
  function chart(id, title, unit, lines, now, oldest, empty) {
    const span = Math.min(WINDOW_MS, Math.max(MIN_SPAN_MS, now - oldest));
    const t0 = now - span;
    let max = 0;
    for (const pts of lines.values()) for (const [, v] of pts) max = Math.max(max, v);
    if (max <= 0) max = 1;
    const x = (t) => PAD_L + (W - PAD_L - PAD_R) * Math.max(0, (t - t0) / span);
    const y = (v) => PAD_T + (H - PAD_T - PAD_B) * (1 - v / max);
    const kids = [
      svg('rect', { x: PAD_L, y: PAD_T, width: W - PAD_L - PAD_R, height: H - PAD_T - PAD_B, fill: '#fff', stroke: '#dde1e7' }),
      svg('text', { x: PAD_L - 4, y: PAD_T + 10, 'text-anchor': 'end', 'font-size': 10, fill: '#6b7383' }, fmt(max)),
      svg('text', { x: PAD_L - 4, y: H - PAD_B, 'text-anchor': 'end', 'font-size': 10, fill: '#6b7383' }, '0'),
      svg('text', { x: PAD_L, y: H - 6, 'font-size': 10, fill: '#6b7383' }, span >= 120000 ? `−${Math.round(span / 60000)} min` : `−${Math.round(span / 1000)} s`),
      svg('text', { x: W - PAD_R, y: H - 6, 'text-anchor': 'end', 'font-size': 10, fill: '#6b7383' }, 'now'),
    ];
    const legend = [];
    let c = 0;
    for (const [name, pts] of [...lines.entries()].sort((a, b) => (a[0] === 'total' ? -1 : b[0] === 'total' ? 1 : a[0].localeCompare(b[0], undefined, { numeric: true })))) {
      const shown = pts.filter(([t]) => t >= t0);
      if (shown.length === 0) continue;
      const color = name === 'total' ? '#1d2330' : COLORS[c++ % COLORS.length];
      const d = shown.map(([t, v], k) => `${k ? 'L' : 'M'}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      kids.push(svg('path', { d, fill: 'none', stroke: color, 'stroke-width': name === 'total' ? 2 : 1.2, 'data-series': name, 'data-points': shown.length },
        svg('title', {}, `${name}: ${fmt(shown[shown.length - 1][1])} ${unit}`)));
      legend.push(h('span', { class: 'legend-item', 'data-series': name, title: `latest ${fmt(shown[shown.length - 1][1])} ${unit}` },
        h('span', { class: 'swatch c' + (name === 'total' ? 'total' : (c - 1) % COLORS.length) }), name));
    }
    if (legend.length === 0) legend.push(h('span', { class: 'muted' }, empty));
    return h('figure', { class: 'plot', id },
      h('figcaption', {}, title, h('span', { class: 'muted' }, ` (${unit}, up to the last 5 minutes)`)),
      svg('svg', { viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'img', 'aria-label': title }, kids),
      h('div', { class: 'legend' }, legend));
  }

  // draw redraws the plots of group key into the element with id el; with
  // no sample and a note (why there is no data), it shows the note instead.
  function draw(el, key, now, note) {
    const list = samples(key);
    if (list.length === 0 && note) {
      document.getElementById(el).replaceChildren(h('p', { class: 'muted' }, note));
      return;
    }
    const oldest = list.length ? list[0].t : now;
    const target = document.getElementById(el);
    if (!target) return;
    target.replaceChildren(
      chart('plot-lag', 'Lag', 'entries', series(list, 'lag'), now, oldest, 'no data yet'),
      chart('plot-throughput', 'Throughput', 'entries read/s', series(list, 'throughput'), now, oldest,
        'no data yet: two polls are needed, and a consumer group that has read nothing (or Redis before 7) reports no entries-read'));
  }

  Object.assign(window.RSC, { plots: { sample, draw, samples, MAX_SAMPLES } });
})();
