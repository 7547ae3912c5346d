// The message browser: one page of a shard stream at a time, oldest first,
// read on demand (not polled).
'use strict';

window.RSC = window.RSC || {};

(() => {
  const { h } = window.RSC;
  const $ = (id) => document.getElementById(id);
  const enc = encodeURIComponent;

  // messages builds the browser around the page's deps: api (fetch with
  // credentials), selected() (the group shown), routeMissing(e) and
  // relogin() (after a 401).
  function messages(deps) {
    // One page of a shard stream, oldest first, from an exclusive cursor ("-":
    // the start). Read on demand, not polled.

    const browse = { shard: null, next: null };

    async function readMessages(from) {
      const sel = deps.selected();
      if (!sel || browse.shard === null) return;
      const shard = browse.shard;
      $('messages').hidden = false;
      $('messages-title').textContent = `Messages of shard ${shard}`;
      $('messages-note').textContent = 'Reading…';
      $('messages-next').disabled = true;
      try {
        const q = from && from !== '-' ? '?from=' + enc(from) : '';
        const r = await deps.api(`/streams/${enc(sel.p)}/shards/${shard}/messages${q}`);
        if (browse.shard !== shard) return;
        $('messages-title').textContent = `Messages of shard ${shard} (${r.streamKey})`;
        browse.next = r.nextCursor;
        $('messages-next').disabled = !r.nextCursor;
        const rows = (r.messages || []).map((m) => h('tr', { 'data-message': m.id },
          h('td', {}, m.id),
          h('td', { class: 'fields' }, Object.entries(m.fields || {}).map(([k, v]) => `${k}=${v.length > 300 ? v.slice(0, 300) + '…' : v}`).join('  '))));
        $('messages-table').tBodies[0].replaceChildren(...rows);
        $('messages-note').textContent = rows.length === 0
          ? 'No messages after this point.'
          : `${rows.length} message${rows.length === 1 ? '' : 's'}${r.nextCursor ? '; more follow' : '; the end of the stream'}.`;
      } catch (e) {
        if (e.status === 401) { deps.relogin(); return; }
        $('messages-table').tBodies[0].replaceChildren();
        $('messages-note').textContent = deps.routeMissing(e)
          ? 'This coordinator has no message browsing route.'
          : 'Cannot read messages: ' + e.message;
      }
    }

    function openMessages(shard) {
      browse.shard = shard;
      browse.next = null;
      $('messages-from').value = '';
      readMessages('-');
    }

    function closeMessages() {
      browse.shard = null;
      $('messages').hidden = true;
    }

    // wire connects the browser's form and buttons.
    function wire() {
      $('messages-form').addEventListener('submit', (ev) => { ev.preventDefault(); readMessages($('messages-from').value.trim() || '-'); });
      $('messages-next').addEventListener('click', () => { if (browse.next) { $('messages-from').value = browse.next; readMessages(browse.next); } });
      $('messages-close').addEventListener('click', closeMessages);
    }

    return { open: openMessages, close: closeMessages, wire };
  }

  Object.assign(window.RSC, { messages });
})();
