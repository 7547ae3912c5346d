// The selected group's shard grid: per shard its target and current owner,
// its state (OWNED, MOVING, REVOKING, …), revocation in flight and, from the
// per-shard offsets route, pending, lag, length, last id, consumers and memory.
'use strict';

window.RSC = window.RSC || {};

(() => {
  const { h, badge, bytes, num } = window.RSC;
  const $ = (id) => document.getElementById(id);

  // offsetRows normalises the offsets answer to shardIndex → row.
  function offsetRows(o) {
    const out = new Map();
    if (!o) return out;
    const rows = Array.isArray(o) ? o : (o.shards || o.offsets || []);
    for (const r of rows) {
      const i = r.shardIndex !== undefined ? r.shardIndex : (r.shard && r.shard.shardIndex);
      if (i !== undefined) out.set(i, r);
    }
    return out;
  }

  const invert = (m) => {
    const out = new Map();
    for (const [id, shards] of Object.entries(m || {})) for (const s of shards || []) out.set(s.shardIndex, id);
    return out;
  };

  // renderShards fills the grid; streams maps a prefix to its stream view
  // (GET /streams) and offsetsNote says why offsets are missing, if they are.
  function renderShards(d, streams, offsetsNote) {
    const a = d.assignments || {};
    const target = invert(a.targetAssignment);
    const current = invert(a.currentAssignments);
    const revoking = new Map((a.revokeDetails || []).map((r) => [r.shard.shardIndex, r]));
    const waiting = new Map();
    const memberState = new Map();
    for (const m of d.members) {
      memberState.set(m.memberId, m.state);
      for (const s of m.pending || []) waiting.set(s.shardIndex, m.memberId);
    }
    const offsets = offsetRows(d.offsets);
    // Pending entries from the members' own reports when there are no offsets:
    // the current owner's row, else the largest reported.
    const reported = new Map();
    for (const r of d.consumption) {
      const i = r.shard.shardIndex;
      const own = current.get(i) === r.memberId;
      const prev = reported.get(i);
      if (!prev || own || (!prev.own && r.pendingCount > prev.n)) reported.set(i, { n: r.pendingCount, own });
    }
    // A scale-in's removed shards: beyond the stream's routing count, still
    // consumed until they drain (as streamctl counts them).
    const view = streams.get(d.group.streamPrefix);
    const routing = view ? view.shardCount : d.group.shardCount;
    const indexes = new Set([...Array(Math.max(0, d.group.shardCount)).keys(), ...target.keys(), ...current.keys(), ...revoking.keys(), ...offsets.keys()]);
    const counts = new Map();
    const onlyUnsettled = $('only-unsettled').checked;
    const rows = [...indexes].sort((x, y) => x - y).map((i) => {
      const t = target.get(i) || '';
      const rv = revoking.get(i);
      const c = current.get(i) || (rv ? rv.fromMemberId : '');
      let state;
      if (rv) state = 'REVOKING';
      else if (!t && !c) state = 'UNOWNED';
      else if (t && t === c) state = 'OWNED';
      else if (t && !c) state = waiting.has(i) ? 'WAITING' : 'ASSIGNING';
      else if (memberState.get(c) === 'FENCED') state = 'BLOCKED'; // until the fenced holder's lease ends or it rejoins
      else if (!t) state = 'DRAINING';
      else state = 'MOVING';
      const removed = i >= routing;
      if (removed && state !== 'REVOKING' && state !== 'BLOCKED' && state !== 'UNOWNED') state = 'DRAINING';
      counts.set(state, (counts.get(state) || 0) + 1);
      if (onlyUnsettled && state === 'OWNED') return null;
      const off = offsets.get(i);
      const pending = off ? (off.pending !== undefined ? off.pending : off.pendingCount) : (reported.has(i) ? reported.get(i).n : undefined);
      const revokeText = rv ? `${rv.fromMemberId}${rv.fromState && rv.fromState !== 'ACTIVE' ? ' (' + rv.fromState + ')' : ''} → ${rv.toMemberId || '(none)'} · in flight ${num(rv.inFlight)}` : '';
      const revokeCell = h('td', { 'data-col': 'revoking' }, revokeText);
      if (rv && rv.deadline) revokeCell.append(' · ', h('span', { 'data-deadline': rv.deadline, class: 'lease' }, ''));
      return h('tr', { 'data-shard': i, 'data-removed': removed ? 'true' : null, title: removed ? 'removed by a scale-in: producers no longer write to it; it drains before it is retired' : null,
        class: state === 'OWNED' ? '' : (state === 'UNOWNED' ? 'unowned' : 'moving') },
        h('td', { 'data-col': 'shard', class: 'num' }, h('button', { type: 'button', class: 'link', 'data-browse': i, title: 'browse the messages of this shard' }, String(i))),
        h('td', { 'data-col': 'target', class: 'trunc', title: t || null }, t || '—'),
        h('td', { 'data-col': 'current', class: 'trunc', title: c || null }, c || '—'),
        h('td', { 'data-col': 'state' }, badge(state), waiting.has(i) && state !== 'OWNED' ? h('span', { class: 'muted' }, ` for ${waiting.get(i)}`) : null,
          state === 'BLOCKED' ? h('span', { class: 'muted', title: 'a fenced member may still read it until its lease ends or it rejoins' }, ` by fenced ${c}`) : null),
        revokeCell,
        h('td', { 'data-col': 'pending', class: 'num' }, num(pending)),
        h('td', { 'data-col': 'lag', class: 'num' }, off ? num(off.lag) : '—'),
        h('td', { 'data-col': 'length', class: 'num' }, off ? num(off.length) : '—'),
        h('td', { 'data-col': 'lastid', class: 'mono' }, off ? (off.lastId || off.lastGeneratedId || '—') : '—'),
        h('td', { 'data-col': 'consumers', class: 'num', title: off && off.consumers && off.consumers.names ? off.consumers.names.map((n) => `${n.name}: pending ${n.pending}, idle ${n.idleMs} ms`).join('\n') : '' },
          off && off.consumers ? num(off.consumers.count) : '—'),
        h('td', { 'data-col': 'memory', class: 'num' }, off ? bytes(off.memoryUsage) : '—'));
    });
    $('shard-grid').tBodies[0].replaceChildren(...rows.filter((r) => r));
    $('shard-summary').replaceChildren(`${indexes.size} shard${indexes.size === 1 ? '' : 's'}: `,
      ...[...counts.entries()].sort().flatMap(([s, n], k) => [k ? ' · ' : '', `${n} `, badge(s)]));
    $('offsets-note').textContent = offsetsNote;
  }

  Object.assign(window.RSC, { renderShards });
})();
