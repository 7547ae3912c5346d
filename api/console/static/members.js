// The selected group's members table and its fencings and expiries (events),
// kept while the page is open.
'use strict';

window.RSC = window.RSC || {};

(() => {
  const { h, badge, num, fmtShards } = window.RSC;
  const $ = (id) => document.getElementById(id);
  const MAX_EVENTS = 50;

  // members builds the table around the page's deps: ago(iso) and now() (the
  // coordinator's clock), tick() (redraws the countdowns).
  function members({ ago, now, tick }) {
    let events = new Map();    // key → {at, member, state, epoch, how}
    let lastStates = new Map();

    function renderMembers(members) {
      const rows = members.map((m) => {
        const cap = m.runtimeConsumerCapacity || {};
        // A FENCED member's lease still counts: its shards stay blocked until it ends.
        const gone = m.state === 'EXPIRED';
        const lease = m.leaseExpiresAt || m.memberLeaseExpiresAt;
        // A static member shows its instance id; one away on a temporary leave, until when its
        // shards are held for the next process with that instance id.
        const instance = m.instanceId ? h('div', { class: 'muted trunc', 'data-instance': m.instanceId, title: 'static member: instance ' + m.instanceId }, 'instance ' + m.instanceId) : null;
        const held = m.heldUntil ? h('div', { class: 'muted', 'data-held-until': m.heldUntil, title: 'away on a temporary leave (restarting): its shards are given to nobody else until ' + m.heldUntil + ', for the next process with its instance id' },
          'away, shards held for ', h('span', { 'data-deadline': m.heldUntil }, '')) : null;
        return h('tr', { 'data-member': m.memberId },
          h('td', { 'data-col': 'member', class: 'trunc', title: m.memberId }, m.memberId, instance),
          h('td', { 'data-col': 'name', class: 'trunc', title: m.memberName || null }, m.memberName || ''),
          h('td', { 'data-col': 'state' }, badge(m.state), m.stateSince ? h('span', { class: 'muted', title: 'since ' + m.stateSince }, ' ' + ago(m.stateSince)) : null,
            held),
          h('td', { 'data-col': 'epoch', class: 'num' }, m.memberEpoch),
          h('td', { 'data-col': 'lease', class: 'num' }, gone || !lease ? '—' : h('span', { class: 'lease', 'data-deadline': lease, title: lease }, '')),
          h('td', { 'data-col': 'capacity', class: 'num', title: 'available / max concurrency' }, `${num(cap.availableConcurrency)} / ${num(cap.runtimeMaxConcurrency)}`),
          h('td', { 'data-col': 'owns' }, fmtShards(m.currentAssignment)),
          h('td', { 'data-col': 'target' }, fmtShards(m.targetAssignment)),
          h('td', { 'data-col': 'pending' }, fmtShards(m.pending)),
          h('td', { 'data-col': 'revoking' }, fmtShards(m.revoking)),
          h('td', { 'data-col': 'heartbeat' }, m.lastHeartbeatAt ? ago(m.lastHeartbeatAt) : '—',
            m.transport ? h('span', { class: 'muted', 'data-col': 'transport', title: 'the transport of its last heartbeat' }, ' via ' + m.transport) : null));
      });
      if (rows.length === 0) rows.push(h('tr', {}, h('td', { colspan: 11, class: 'muted' }, 'No members.')));
      $('members').tBodies[0].replaceChildren(...rows);
      tick();
    }

    // renderEvents lists fencings and expiries: the group's recent events as
    // the coordinator reports them (with their cause), the members it still
    // retains as FENCED or EXPIRED (with the time they entered that state), and
    // the transitions this page saw while it was open. Events stay listed after
    // the member rejoins or its record is dropped.
    function renderEvents(members, recent) {
      for (const e of recent) {
        events.set(`${e.memberId}|${e.state}|${e.at}`, { at: e.at, member: e.memberId, state: e.state, epoch: e.memberEpoch, how: e.cause });
      }
      for (const m of members) {
        const before = lastStates.get(m.memberId);
        lastStates.set(m.memberId, m.state);
        if (m.state !== 'FENCED' && m.state !== 'EXPIRED') continue;
        const at = m.stateSince || new Date(now()).toISOString();
        const key = `${m.memberId}|${m.state}|${at}`;
        if (!events.has(key)) {
          events.set(key, { at, member: m.memberId, state: m.state, epoch: m.memberEpoch,
            how: before && before !== m.state ? `seen ${before} → ${m.state}` : 'retained by the coordinator' });
        }
      }
      const list = [...events.values()].sort((a, b) => b.at.localeCompare(a.at)).slice(0, MAX_EVENTS);
      events = new Map(list.map((e) => [`${e.member}|${e.state}|${e.at}`, e]));
      const items = list.map((e) => h('li', { 'data-member': e.member, 'data-state': e.state },
        badge(e.state), ` ${e.member} `, h('span', { class: 'muted', title: e.at }, `${ago(e.at)} · epoch ${e.epoch} · ${e.how}`)));
      if (items.length === 0) items.push(h('li', { class: 'muted' }, 'None seen.'));
      $('events').replaceChildren(...items);
    }

    // reset forgets the events seen, when another group is selected.
    function reset() {
      events = new Map();
      lastStates = new Map();
    }

    return { render: renderMembers, events: renderEvents, reset };
  }

  Object.assign(window.RSC, { members });
})();
