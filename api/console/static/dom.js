// Element helpers shared by the console's scripts. Data is only ever put in
// the page as text (textContent), never as HTML.
'use strict';

window.RSC = window.RSC || {};

(() => {
  // h builds an element: attrs are set as attributes (data-*, class, title…),
  // children are nodes or strings (added as text).
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  // svg builds an SVG element the same way (presentation attributes only:
  // the page's security policy allows no inline style).
  function svg(tag, attrs, ...children) {
    const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) el.setAttribute(k, String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  const badge = (s, label) => h('span', { class: 'badge ' + s, title: label && label !== s ? s : null }, label || s);

  // dur shows a countdown: tenths of a second while it matters, coarser beyond.
  function dur(ms) {
    if (ms < 100000) return (ms / 1000).toFixed(1) + ' s';
    if (ms < 7200000) return Math.round(ms / 60000) + ' min';
    if (ms < 172800000) return Math.round(ms / 3600000) + ' h';
    return Math.round(ms / 86400000) + ' d';
  }

  function bytes(n) {
    if (n === undefined || n === null || n < 0) return '—';
    if (n < 1024) return n + ' B';
    if (n < 1 << 20) return (n / 1024).toFixed(1) + ' KiB';
    return (n / (1 << 20)).toFixed(1) + ' MiB';
  }

  // shardsText is a stream's shard count as streamctl shows it: the routing
  // count, with the shards a scale-in removed that still drain.
  function shardsText(v) {
    if (!v) return '';
    const consumed = v.consumedShardCount || v.shardCount;
    return consumed > v.shardCount ? `${v.shardCount} (+${consumed - v.shardCount} draining)` : String(v.shardCount);
  }

  // num shows a count; absent or negative (unknown) as a dash.
  const num = (v) => (v === undefined || v === null || v < 0 ? '—' : String(v));
  // fmtShards lists shard ids ([{shardIndex}]) in order.
  const fmtShards = (ids) => (ids || []).map((s) => s.shardIndex).sort((a, b) => a - b).join(', ') || '—';

  Object.assign(window.RSC, { h, svg, badge, shardsText, dur, bytes, num, fmtShards });
})();
