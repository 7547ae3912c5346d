// Redis Stream Coordinator console. Plain script, no dependencies: it polls
// the monitoring routes once a second and redraws. Data is only ever put in
// the page as text (textContent), never as HTML.
'use strict';

(() => {
  const API = '/coord/v1';
  const POLL_MS = 1000;          // at most this far behind the coordinator
  const HIDDEN_POLL_MS = 10000;  // while the tab is not visible
  const OFFSETS_RETRY_MS = 30000; // a server without the offsets route is asked again after this
  const MAX_EVENTS = 50;
  const CLUSTER_POLL_MS = 5000;   // the cluster view changes rarely; asked at most this often
  const TOKEN = 'rsc.console.token';
  const WHO = 'rsc.console.principal';

  const st = {
    selected: null,       // {p, g}
    view: 'group',        // or 'cluster' (#/cluster)
    streams: new Map(),   // prefix → stream view (GET /streams): routing and consumed shard counts
    clusterAt: 0,
    timer: null,
    polling: false,
    skewMs: 0,            // server clock − browser clock, when it matters
    offsetsMissingUntil: 0,
    offsetsNote: '',
    events: new Map(),    // key → {at, member, state, epoch, how}
    lastStates: new Map(),
    lastUpdate: 0,
  };

  const $ = (id) => document.getElementById(id);

  const { h, badge, shardsText, dur, bytes } = window.RSC;
  const enc = encodeURIComponent;
  const shardList = (ids) => (ids || []).map((s) => s.shardIndex).sort((a, b) => a - b);
  const fmtShards = (ids) => shardList(ids).join(', ') || '—';
  const num = (v) => (v === undefined || v === null || v < 0 ? '—' : String(v));

  class HTTPError extends Error {
    constructor(status, body) {
      super((body && body.message) || 'HTTP ' + status);
      this.status = status;
      this.body = body;
    }
  }

  async function api(path, init) {
    const headers = { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
    const token = sessionStorage.getItem(TOKEN);
    if (token) headers.Authorization = 'Bearer ' + token;
    const r = await fetch(API + path, Object.assign({ headers, cache: 'no-store', credentials: 'omit' }, init || {}));
    const date = Date.parse(r.headers.get('Date') || '');
    if (Number.isFinite(date)) {
      const skew = date - Date.now();
      st.skewMs = Math.abs(skew) > 2000 ? skew : 0; // the Date header has one-second resolution
    }
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (!r.ok) throw new HTTPError(r.status, body);
    return body;
  }

  const now = () => Date.now() + st.skewMs;

  // The message browser (messages.js): reads with this page's credentials
  // for the selected group's stream; a 401 sends the page back to its login.
  const messages = window.RSC.messages({ api, selected: () => st.selected, routeMissing: (e) => routeMissing(e), relogin: () => poll() });
  // The assignment mode form (assignment.js).
  const assignment = window.RSC.assignment({ api, selected: () => st.selected, refresh: () => { clearTimeout(st.timer); poll(); } });

  // ---- polling -------------------------------------------------------------

  function schedule(delay) {
    clearTimeout(st.timer);
    st.timer = setTimeout(poll, Math.max(0, delay));
  }

  async function poll() {
    if (st.polling) return;
    st.polling = true;
    const started = Date.now();
    let again = true;
    const health = api('/monitoring/health').catch(() => null); // public: shown also before login
    health.then(renderHealth);
    try {
      const [groups, streams] = await Promise.all([api('/monitoring/groups'), loadStreams()]);
      const list = (groups && groups.groups) || [];
      if (!st.selected && st.view === 'group' && list.length > 0) {
        select(list[0].streamPrefix, list[0].consumerGroup, true);
      }
      if (streams) st.streams = new Map(streams.map((v) => [v.streamPrefix, v]));
      renderGroupList(list);
      showCluster(st.view === 'cluster');
      if (st.view === 'cluster') {
        showGroup(false);
        $('no-group').hidden = true;
        await loadCluster();
      } else if (st.selected) {
        await loadGroup(st.selected);
      } else {
        showGroup(false);
        $('no-group').textContent = list.length ? 'Pick a group on the left.' : '';
      }
      showApp();
      setError('');
      st.lastUpdate = Date.now();
      tick();
    } catch (e) {
      if (e.status === 401) {
        again = false;
        showLogin(sessionStorage.getItem(TOKEN) ? 'Your session has expired: log in again.' : '');
        sessionStorage.removeItem(TOKEN);
        sessionStorage.removeItem(WHO);
      } else if (e.status === 403) {
        setError('This account may not read the monitoring routes: it needs the READ role.');
      } else {
        if (!(e instanceof HTTPError) && !(e instanceof TypeError && /fetch/i.test(e.message))) console.error('console: ' + (e.stack || e)); // a bug of the page, not the network
        setError(e.status
          ? `The coordinator answered ${e.status}: ${e.message} (retrying; the page shows what it last read)`
          : `Cannot reach the coordinator: ${e.message} (retrying; the page shows what it last read)`);
      }
    } finally {
      st.polling = false;
    }
    if (again) schedule((document.hidden ? HIDDEN_POLL_MS : POLL_MS) - (Date.now() - started));
  }

  // loadStreams lists every stream, with or without groups (null from a
  // server without the route: the list then shows the groups' streams).
  async function loadStreams() {
    try {
      const r = await api('/streams');
      return (r && r.streams) || [];
    } catch (e) {
      if (e.status === 401) throw e;
      return null;
    }
  }

  // loadCluster refreshes the cluster view, at most every CLUSTER_POLL_MS.
  async function loadCluster() {
    if (Date.now() - st.clusterAt < CLUSTER_POLL_MS) return;
    st.clusterAt = Date.now();
    try {
      window.RSC.cluster.render(await api('/monitoring/cluster'), '', ago);
    } catch (e) {
      if (e.status === 401) throw e;
      window.RSC.cluster.render(null, routeMissing(e)
        ? 'This coordinator cannot list its cluster\'s nodes.' : 'Cluster view unavailable: ' + e.message, ago);
    }
  }

  async function loadGroup(sel) {
    const base = `/monitoring/streams/${enc(sel.p)}/groups/${enc(sel.g)}`;
    let group, members, assignments, consumption, migrations, offsets;
    try {
      [group, members, assignments, consumption, migrations, offsets] = await Promise.all([
        api(base), api(base + '/members'), api(base + '/assignments'), api(base + '/consumption'),
        api(base + '/migrations'), loadOffsets(sel),
      ]);
    } catch (e) {
      if (e.status === 404 || e.status === 403) {
        if (sel === st.selected) {
          showGroup(false);
          $('no-group').textContent = e.status === 404
            ? `Group ${sel.g} of stream ${sel.p} does not exist (any more).`
            : `This account may not read stream ${sel.p}.`;
        }
        return;
      }
      throw e;
    }
    if (sel !== st.selected) return; // the operator picked another group meanwhile
    const d = { group, members: members.members || [], recentEvents: members.recentEvents || [], assignments, consumption: consumption.progress || [],
      migrations: migrations || { migrations: [] }, offsets };
    renderGroup(d);
    const key = `${sel.p}\n${sel.g}`;
    if (offsets) window.RSC.plots.sample(key, offsets, now());
    window.RSC.plots.draw('plots', key, now(), st.offsetsNote ? 'Nothing to plot: the plots are drawn from the per-shard offsets.' : '');
  }

  // loadOffsets asks the per-shard offsets route; a server without it (404,
  // 405) is asked again only every OFFSETS_RETRY_MS, and the grid shows what
  // the other routes tell.
  async function loadOffsets(sel) {
    if (Date.now() < st.offsetsMissingUntil) return null;
    try {
      const r = await api(`/streams/${enc(sel.p)}/groups/${enc(sel.g)}/offsets`);
      st.offsetsNote = '';
      return r;
    } catch (e) {
      if (e.status === 401) throw e;
      st.offsetsMissingUntil = Date.now() + OFFSETS_RETRY_MS;
      st.offsetsNote = routeMissing(e)
        ? 'This coordinator has no per-shard offsets route: lag, length, last id, consumers and memory are not shown; pending entries come from the members\' reports.'
        : 'Per-shard offsets unavailable (' + e.message + '): pending entries come from the members\' reports.';
      return null;
    }
  }

  // routeMissing tells a server without the route (an older coordinator:
  // fiber's "Cannot GET …") from a 404 about the data (no such shard).
  function routeMissing(e) {
    return e.status === 405 || (e.status === 404 && (!e.body || /^Cannot /.test(e.body.message || '')));
  }

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

  // ---- rendering -----------------------------------------------------------

  function renderHealth(hl) {
    const el = $('health');
    const s = hl ? hl.status : 'DOWN';
    el.textContent = s;
    el.className = 'badge ' + s;
    el.title = hl ? `node ${hl.coordinatorId} · redis ${hl.redis} · actors ${hl.loop}${hl.refusing ? ' · refusing: ' + hl.refusing : ''}` : 'no answer';
  }

  // renderGroupList lists every stream (those without groups too) with its
  // shard count as streamctl shows it, and its groups.
  function renderGroupList(list) {
    const byStream = new Map();
    for (const p of st.streams.keys()) byStream.set(p, []);
    for (const g of list) {
      if (!byStream.has(g.streamPrefix)) byStream.set(g.streamPrefix, []);
      byStream.get(g.streamPrefix).push(g);
    }
    const nodes = [];
    for (const [p, gs] of [...byStream.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
      const view = st.streams.get(p);
      const shards = view ? shardsText(view) : String(gs[0].shardCount);
      const n = view ? view.shardCount : gs[0].shardCount;
      nodes.push(h('div', { class: 'stream', 'data-stream': p },
        h('div', { class: 'stream-name', title: p }, p, h('span', { class: 'muted', 'data-col': 'shards' }, ` · ${shards} shard${n === 1 && shards === '1' ? '' : 's'}`)),
        gs.length === 0 ? h('p', { class: 'muted no-groups' }, 'no groups') : null,
        gs.sort((a, b) => a.consumerGroup.localeCompare(b.consumerGroup)).map((g) => {
          const sel = st.view === 'group' && st.selected && st.selected.p === p && st.selected.g === g.consumerGroup;
          const live = Object.keys(g.targetAssignmentSummary || {}).length;
          return h('a', { href: `#/g/${enc(p)}/${enc(g.consumerGroup)}`, class: sel ? 'selected' : '', 'data-group': g.consumerGroup, title: g.consumerGroup },
            h('span', { class: 'trunc' }, g.consumerGroup), h('span', {}, h('span', { class: 'muted', title: 'live members' }, live + ' '), badge(g.state)));
        })));
    }
    if (nodes.length === 0) nodes.push(h('p', { class: 'muted' }, 'No streams yet.'));
    $('group-list').replaceChildren(...nodes);
    $('cluster-link').classList.toggle('selected', st.view === 'cluster');
  }

  function renderGroup(d) {
    const g = d.group;
    showGroup(true);
    $('group-title').textContent = `${g.streamPrefix} / ${g.consumerGroup}`;
    const summary = [
      ['State', badge(g.state)], ['Group epoch', g.groupEpoch], ['Assignment epoch', g.assignmentEpoch],
      ['Metadata version', g.metadataVersion], ['Assignment', g.assignment || 'uniform'], ['Shards', st.streams.has(g.streamPrefix) ? shardsText(st.streams.get(g.streamPrefix)) : g.shardCount],
      ['Active migration', g.activeMigration ? `${g.activeMigration.reshardingId} (${g.activeMigration.fromShardCount} → ${g.activeMigration.toShardCount}, ${g.activeMigration.state})` : 'none'],
      ['Rebalancing', rebalancing(g)],
    ];
    $('group-summary').replaceChildren(...summary.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))));
    assignment.show(g);
    const v = (d.assignments && d.assignments.invariantViolations) || [];
    $('violations').hidden = v.length === 0;
    $('violations').textContent = v.length ? 'Invariant violations: ' + v.join('; ') : '';
    renderShards(d);
    renderMembers(d.members);
    renderEvents(d.members, d.recentEvents);
    window.RSC.renderMigrations(d.migrations, ago);
  }

  // rebalancing is the group's rebalancing: active, or paused by an operator
  // (POST …/rebalancing) with who, why, since when and what still moves.
  function rebalancing(g) {
    const p = g.rebalancingPause;
    if (g.rebalancing !== 'paused' || !p) return 'active';
    return h('span', { 'data-rebalancing': 'paused' }, badge('PAUSED', 'paused'),
      ` by ${p.requestedBy} `, h('span', { title: p.since }, ago(p.since)), p.reason ? `: ${p.reason}` : '',
      h('span', { class: 'muted note' }, ' · no shard moves between live members (new members wait for resume); expired or fenced members’ shards are still reassigned'));
  }

  const invert = (m) => {
    const out = new Map();
    for (const [id, shards] of Object.entries(m || {})) for (const s of shards || []) out.set(s.shardIndex, id);
    return out;
  };

  function renderShards(d) {
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
    const view = st.streams.get(d.group.streamPrefix);
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
    $('offsets-note').textContent = st.offsetsNote;
  }

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
      st.events.set(`${e.memberId}|${e.state}|${e.at}`, { at: e.at, member: e.memberId, state: e.state, epoch: e.memberEpoch, how: e.cause });
    }
    for (const m of members) {
      const before = st.lastStates.get(m.memberId);
      st.lastStates.set(m.memberId, m.state);
      if (m.state !== 'FENCED' && m.state !== 'EXPIRED') continue;
      const at = m.stateSince || new Date(now()).toISOString();
      const key = `${m.memberId}|${m.state}|${at}`;
      if (!st.events.has(key)) {
        st.events.set(key, { at, member: m.memberId, state: m.state, epoch: m.memberEpoch,
          how: before && before !== m.state ? `seen ${before} → ${m.state}` : 'retained by the coordinator' });
      }
    }
    const list = [...st.events.values()].sort((a, b) => b.at.localeCompare(a.at)).slice(0, MAX_EVENTS);
    st.events = new Map(list.map((e) => [`${e.member}|${e.state}|${e.at}`, e]));
    const items = list.map((e) => h('li', { 'data-member': e.member, 'data-state': e.state },
      badge(e.state), ` ${e.member} `, h('span', { class: 'muted', title: e.at }, `${ago(e.at)} · epoch ${e.epoch} · ${e.how}`)));
    if (items.length === 0) items.push(h('li', { class: 'muted' }, 'None seen.'));
    $('events').replaceChildren(...items);
  }

  function ago(iso) {
    const t = Date.parse(iso);
    if (!Number.isFinite(t)) return iso;
    const s = Math.round((now() - t) / 1000);
    if (s < 1) return 'just now';
    if (s < 120) return s + ' s ago';
    if (s < 7200) return Math.round(s / 60) + ' min ago';
    return new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  }

  // tick redraws the countdowns (leases, revoke deadlines) between polls.
  function tick() {
    for (const el of document.querySelectorAll('[data-deadline]')) {
      const left = Date.parse(el.getAttribute('data-deadline')) - now();
      el.textContent = left > 0 ? dur(left) : 'due';
      el.classList.toggle('low', left < 3000);
    }
    $('updated').textContent = st.lastUpdate ? 'updated ' + ((Date.now() - st.lastUpdate) / 1000).toFixed(0) + ' s ago' : '';
  }

  // ---- chrome --------------------------------------------------------------

  function setError(msg) {
    $('error').hidden = !msg;
    $('error').textContent = msg;
  }

  function showApp() {
    $('login').hidden = true;
    $('app').hidden = false;
    const who = sessionStorage.getItem(WHO);
    const token = sessionStorage.getItem(TOKEN);
    $('principal').textContent = token ? (who || '') : '';
    $('logout').hidden = !token;
  }

  function showCluster(on) {
    $('cluster-view').hidden = !on;
  }

  function showGroup(on) {
    $('group').hidden = !on;
    $('no-group').hidden = on;
  }

  function showLogin(msg) {
    clearTimeout(st.timer);
    $('app').hidden = true;
    $('logout').hidden = true;
    $('principal').textContent = '';
    $('login').hidden = false;
    $('login-error').textContent = msg || '';
    setError('');
    $('login-user').focus();
  }

  async function login(ev) {
    ev.preventDefault();
    const username = $('login-user').value;
    const password = $('login-password').value;
    $('login-error').textContent = '';
    try {
      const r = await api('/auth/login', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
        body: JSON.stringify({ username, password }) });
      sessionStorage.setItem(TOKEN, r.accessToken);
      sessionStorage.setItem(WHO, `${username} (${(r.roles || []).join(', ')})`);
    } catch (e) {
      if (e.status === 401) { $('login-error').textContent = 'Wrong user name or password.'; return; }
      if (e.status === 429) { $('login-error').textContent = 'Too many attempts: wait a moment.'; return; }
      if (!(e.body && e.body.errorCode === 'AUTHENTICATION_DISABLED')) { $('login-error').textContent = e.message; return; }
      sessionStorage.removeItem(TOKEN); // authentication is off: no token needed
    }
    $('login-password').value = '';
    poll();
  }

  function logout() {
    sessionStorage.removeItem(TOKEN);
    sessionStorage.removeItem(WHO);
    showLogin('');
  }

  function select(p, g, replace) {
    st.view = 'group';
    const same = st.selected && st.selected.p === p && st.selected.g === g;
    if (!same) {
      st.selected = { p, g };
      st.events = new Map();
      st.lastStates = new Map();
      st.offsetsMissingUntil = 0;
      messages.close();
    }
    const hash = `#/g/${enc(p)}/${enc(g)}`;
    if (location.hash !== hash) {
      if (replace) history.replaceState(null, '', hash);
      else location.hash = hash;
    }
  }

  function fromHash() {
    if (location.hash === '#/cluster') {
      st.view = 'cluster';
      st.clusterAt = 0;
      return true;
    }
    const m = /^#\/g\/([^/]+)\/([^/]+)$/.exec(location.hash);
    if (!m) return false;
    try {
      select(decodeURIComponent(m[1]), decodeURIComponent(m[2]), true);
      return true;
    } catch (e) {
      return false;
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('login-form').addEventListener('submit', login);
    $('logout').addEventListener('click', logout);
    $('shard-grid').addEventListener('click', (ev) => {
      const b = ev.target.closest('[data-browse]');
      if (b) messages.open(Number(b.getAttribute('data-browse')));
    });
    messages.wire();
    assignment.wire();
    $('only-unsettled').addEventListener('change', () => { clearTimeout(st.timer); poll(); });
    window.addEventListener('hashchange', () => {
      if (fromHash() && !$('app').hidden) { clearTimeout(st.timer); poll(); }
    });
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden && !$('app').hidden) { clearTimeout(st.timer); poll(); }
    });
    fromHash();
    setInterval(tick, 250);
    poll();
  });
})();
