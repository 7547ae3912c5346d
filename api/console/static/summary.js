// The selected group's summary: state, epochs, metadata version, assignment
// mode, shards, active migration and whether its rebalancing is paused.
'use strict';

window.RSC = window.RSC || {};

(() => {
  const { h, badge, shardsText } = window.RSC;
  const $ = (id) => document.getElementById(id);

  // rebalancing is the group's rebalancing: active, or paused by an operator
  // (POST …/rebalancing) with who, why, since when and what still moves.
  function rebalancing(g, ago) {
    const p = g.rebalancingPause;
    if (g.rebalancing !== 'paused' || !p) return 'active';
    return h('span', { 'data-rebalancing': 'paused' }, badge('PAUSED', 'paused'),
      ` by ${p.requestedBy} `, h('span', { title: p.since }, ago(p.since)), p.reason ? `: ${p.reason}` : '',
      h('span', { class: 'muted note' }, ' · no shard moves between live members (new members wait for resume); expired or fenced members’ shards are still reassigned'));
  }

  // renderSummary fills the summary of group g; streams maps a prefix to its
  // stream view (GET /streams); ago formats a time as the rest of the page does.
  function renderSummary(g, streams, ago) {
    const summary = [
      ['State', badge(g.state)], ['Group epoch', g.groupEpoch], ['Assignment epoch', g.assignmentEpoch],
      ['Metadata version', g.metadataVersion], ['Assignment', g.assignment || 'uniform'], ['Shards', streams.has(g.streamPrefix) ? shardsText(streams.get(g.streamPrefix)) : g.shardCount],
      ['Active migration', g.activeMigration ? `${g.activeMigration.reshardingId} (${g.activeMigration.fromShardCount} → ${g.activeMigration.toShardCount}, ${g.activeMigration.state})` : 'none'],
      ['Rebalancing', rebalancing(g, ago)],
    ];
    $('group-summary').replaceChildren(...summary.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))));
  }

  Object.assign(window.RSC, { renderSummary });
})();
