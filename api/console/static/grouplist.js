// The list on the left: every stream, its shard count and its groups, each a
// link to the group's view (#/g/{stream}/{group}), and the cluster link.
'use strict';

window.RSC = window.RSC || {};

(() => {
  const { h, badge, shardsText } = window.RSC;
  const $ = (id) => document.getElementById(id);
  const enc = encodeURIComponent;

  // renderGroupList lists every stream (those without groups too) with its
  // shard count as streamctl shows it, and its groups.
  // streams maps a prefix to its stream view (GET /streams); pageView and
  // selected are the page's (the one shown is highlighted).
  function renderGroupList(list, streams, pageView, selected) {
    const byStream = new Map();
    for (const p of streams.keys()) byStream.set(p, []);
    for (const g of list) {
      if (!byStream.has(g.streamPrefix)) byStream.set(g.streamPrefix, []);
      byStream.get(g.streamPrefix).push(g);
    }
    const nodes = [];
    for (const [p, gs] of [...byStream.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
      const view = streams.get(p);
      const shards = view ? shardsText(view) : String(gs[0].shardCount);
      const n = view ? view.shardCount : gs[0].shardCount;
      nodes.push(h('div', { class: 'stream', 'data-stream': p },
        h('div', { class: 'stream-name', title: p }, p, h('span', { class: 'muted', 'data-col': 'shards' }, ` · ${shards} shard${n === 1 && shards === '1' ? '' : 's'}`)),
        gs.length === 0 ? h('p', { class: 'muted no-groups' }, 'no groups') : null,
        gs.sort((a, b) => a.consumerGroup.localeCompare(b.consumerGroup)).map((g) => {
          const sel = pageView === 'group' && selected && selected.p === p && selected.g === g.consumerGroup;
          const live = Object.keys(g.targetAssignmentSummary || {}).length;
          return h('a', { href: `#/g/${enc(p)}/${enc(g.consumerGroup)}`, class: sel ? 'selected' : '', 'data-group': g.consumerGroup, title: g.consumerGroup },
            h('span', { class: 'trunc' }, g.consumerGroup), h('span', {}, h('span', { class: 'muted', title: 'live members' }, live + ' '), badge(g.state)));
        })));
    }
    if (nodes.length === 0) nodes.push(h('p', { class: 'muted' }, 'No streams yet.'));
    $('group-list').replaceChildren(...nodes);
    $('cluster-link').classList.toggle('selected', pageView === 'cluster');
  }

  Object.assign(window.RSC, { renderGroupList });
})();
