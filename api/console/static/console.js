// Redis Stream Coordinator console. Plain script, no dependencies: it polls
// the monitoring routes once a second and redraws through the other scripts
// (grouplist.js, summary.js, shards.js, members.js, …). Data is only ever put
// in the page as text (textContent), never as HTML.
'use strict';

(() => {
  const API = '/coord/v1';
  const POLL_MS = 1000;          // at most this far behind the coordinator
  const HIDDEN_POLL_MS = 10000;  // while the tab is not visible
  const OFFSETS_RETRY_MS = 30000; // a server without the offsets route is asked again after this
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
    lastUpdate: 0,
  };

  const $ = (id) => document.getElementById(id);

  const { dur } = window.RSC;
  const enc = encodeURIComponent;

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
  // The members table and its events (members.js).
  const members = window.RSC.members({ ago, now, tick });
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
      window.RSC.renderGroupList(list, st.streams, st.view, st.selected);
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

  // ---- rendering -----------------------------------------------------------

  function renderHealth(hl) {
    const el = $('health');
    const s = hl ? hl.status : 'DOWN';
    el.textContent = s;
    el.className = 'badge ' + s;
    el.title = hl ? `node ${hl.coordinatorId} · redis ${hl.redis} · actors ${hl.loop}${hl.refusing ? ' · refusing: ' + hl.refusing : ''}` : 'no answer';
  }

  function renderGroup(d) {
    const g = d.group;
    showGroup(true);
    $('group-title').textContent = `${g.streamPrefix} / ${g.consumerGroup}`;
    window.RSC.renderSummary(g, st.streams, ago);
    assignment.show(g);
    const v = (d.assignments && d.assignments.invariantViolations) || [];
    $('violations').hidden = v.length === 0;
    $('violations').textContent = v.length ? 'Invariant violations: ' + v.join('; ') : '';
    window.RSC.renderShards(d, st.streams, st.offsetsNote);
    members.render(d.members);
    members.events(d.members, d.recentEvents);
    window.RSC.renderMigrations(d.migrations, ago);
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
      members.reset();
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
