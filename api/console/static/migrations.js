// The migration history of the selected group's stream (…/migrations):
// newest first, the active one in bold, its steps and shards under details.
'use strict';

window.RSC = window.RSC || {};

(() => {
  const { h, badge } = window.RSC;
  // A migration's state: its successful end (the API's DEPRECATED) reads as completed.
  const migBadge = (s) => (s === 'DEPRECATED'
    ? h('span', { class: 'badge COMPLETED', title: 'finished (API state DEPRECATED)' }, 'completed (DEPRECATED)') : badge(s));

  // renderMigrations fills the migrations table; ago formats a time as the
  // rest of the page does.
  function renderMigrations(r, ago) {
    const ms = (r && r.migrations) || [];
    const rows = ms.slice().reverse().map((m) => {
      const first = h('td', { 'data-col': 'id' }, m.reshardingId === r.activeReshardingId ? h('strong', {}, m.reshardingId) : m.reshardingId);
      if ((m.history && m.history.length) || (m.shards && m.shards.length)) {
        first.append(h('details', {}, h('summary', {}, 'details'),
          h('ul', {}, (m.history || []).map((s) => h('li', {}, `${s.state} at ${s.at}${s.node ? ' on ' + s.node : ''}${s.note ? ': ' + s.note : ''}`))),
          h('ul', {}, (m.shards || []).map((s) => h('li', {}, `${s.change} shard ${s.shardIndex} (${s.streamKey}): ${s.state}` +
            (s.blockedBy && s.blockedBy.length ? ' · waiting for ' + s.blockedBy.map((b) => `${b.consumerGroup} pending ${b.pending} lag ${b.lag}`).join(', ') : ''))))));
      }
      return h('tr', { 'data-migration': m.reshardingId }, first,
        h('td', {}, `${m.fromShardCount} → ${m.toShardCount}`), h('td', {}, migBadge(m.state)),
        h('td', { class: 'trunc', title: m.requestedBy || null }, m.requestedBy || ''), h('td', { class: 'wrap', title: m.reason || null }, m.reason || ''),
        h('td', { class: 'wrap', title: m.waiting || null }, m.waiting || ''),
        h('td', { title: m.createdAt }, m.createdAt ? ago(m.createdAt) : ''), h('td', { title: m.updatedAt }, m.updatedAt ? ago(m.updatedAt) : ''));
    });
    if (rows.length === 0) rows.push(h('tr', {}, h('td', { colspan: 8, class: 'muted' }, 'No migrations.')));
    document.getElementById('migrations').tBodies[0].replaceChildren(...rows);
  }

  Object.assign(window.RSC, { renderMigrations });
})();
