// The selected group's assignment mode (POST …/groups/{g}/assignment): uniform (every member
// the same number of shards) or capacity (in proportion to each member's
// runtimeMaxConcurrency). Shown in the group summary, set with the form under it; the account
// needs the WRITE role and the coordinator audits the change.
'use strict';

window.RSC = window.RSC || {};

(() => {
  const enc = encodeURIComponent;

  // assignment wires the form: api is the page's fetch helper (its HTTPError message is the
  // coordinator's), selected the selected {p, g}, refresh redraws the group at once.
  function assignment({ api, selected, refresh }) {
    const $ = (id) => document.getElementById(id);
    let shownFor = '';
    let shownMode = '';

    // show puts the form on the group's mode when another group is selected or the mode
    // changed, and otherwise leaves the operator's choice alone (the page redraws every second).
    function show(g) {
      const mode = g.assignment || 'uniform';
      const key = `${g.streamPrefix}\n${g.consumerGroup}`;
      if (shownFor !== key || shownMode !== mode) $('assignment-mode').value = mode;
      if (shownFor !== key) $('assignment-note').textContent = '';
      shownFor = key;
      shownMode = mode;
    }

    async function submit(ev) {
      ev.preventDefault();
      const s = selected();
      if (!s) return;
      const note = $('assignment-note');
      const mode = $('assignment-mode').value;
      const headers = { Accept: 'application/json', 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
      const token = sessionStorage.getItem('rsc.console.token');
      if (token) headers.Authorization = 'Bearer ' + token;
      const who = (sessionStorage.getItem('rsc.console.principal') || 'console').split(' ')[0];
      note.classList.remove('error');
      note.textContent = 'Setting…';
      try {
        const g = await api(`/streams/${enc(s.p)}/groups/${enc(s.g)}/assignment`, {
          method: 'POST', headers,
          body: JSON.stringify({ assignment: mode, requestedBy: who, reason: $('assignment-reason').value }),
        });
        note.textContent = `Now ${g.assignment}: members move toward the new target as in any rebalance.`;
        refresh();
      } catch (e) {
        note.classList.add('error');
        note.textContent = e.status === 403 ? 'This account may not change the group (WRITE role needed).' : e.message;
      }
    }

    return { show, wire: () => $('assignment-form').addEventListener('submit', submit) };
  }

  window.RSC.assignment = assignment;
})();
