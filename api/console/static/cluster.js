// The cluster view: every coordinator node (GET /monitoring/cluster), its
// incarnation and address, since when it runs, whether it refuses to serve,
// and the groups it hosts.
'use strict';

window.RSC = window.RSC || {};

(() => {
  const { h, badge } = window.RSC;
  const enc = encodeURIComponent;

  // render fills the cluster table from r (null: the route is missing, with
  // note saying so). ago formats a time as the rest of the page does.
  function render(r, note, ago) {
    const nodes = (r && r.nodes) || [];
    const rows = nodes.map((n) => {
      const state = n.refusing ? 'REFUSING' : (n.inCluster ? 'SERVING' : 'OUTSIDE');
      const groups = n.groups || [];
      const hosted = groups.length === 0 ? h('span', { class: 'muted' }, '—') : h('ul', { class: 'hosted' },
        groups.map((g) => h('li', { 'data-group': `${g.streamPrefix}/${g.consumerGroup}` },
          h('a', { href: `#/g/${enc(g.streamPrefix)}/${enc(g.consumerGroup)}`, title: `activation epoch ${g.activationEpoch || '?'} · ${g.members} member${g.members === 1 ? '' : 's'}` },
            `${g.streamPrefix} / ${g.consumerGroup}`))));
      return h('tr', { 'data-node': n.nodeId, 'data-incarnation': n.incarnation },
        h('td', { 'data-col': 'node' }, n.nodeId, n.self ? h('span', { class: 'muted', title: 'the node this page talks to' }, ' (this node)') : null),
        h('td', { 'data-col': 'incarnation', class: 'mono' }, n.incarnation || '—'),
        h('td', { 'data-col': 'address', class: 'trunc', title: n.address || '' }, n.address || '—'),
        h('td', { 'data-col': 'started', title: n.startedAt || '' }, n.startedAt ? ago(n.startedAt) : '—'),
        h('td', { 'data-col': 'state', class: 'wrap' }, badge(state), n.refusingReason ? h('span', { class: 'muted' }, ' ' + n.refusingReason) : null),
        h('td', { 'data-col': 'count', class: 'num' }, String(groups.length)),
        h('td', { 'data-col': 'groups', class: 'wrap' }, hosted));
    });
    if (rows.length === 0) rows.push(h('tr', {}, h('td', { colspan: 7, class: 'muted' }, note || 'No nodes reported.')));
    document.getElementById('cluster-table').tBodies[0].replaceChildren(...rows);
    document.getElementById('cluster-note').textContent = note || '';
    const link = document.getElementById('cluster-link-count');
    if (link) link.textContent = r ? ` · ${nodes.length} node${nodes.length === 1 ? '' : 's'}` : '';
  }

  Object.assign(window.RSC, { cluster: { render } });
})();
