package lua

import "github.com/redis/go-redis/v9"

// Every script answers {status, ...}. Status "OK" means applied; anything
// else means nothing was written.

// Activate: KEYS meta, members; ARGV owner, prefix, group.
// Bumps the activation epoch, (re)creates a deleted group empty, adds the
// previous owner to the newline-separated list of owners not yet told of a
// takeover, takes the hand-over a release left (returned only if the
// releasing activation is the directly previous one; always removed),
// returns {"OK", epoch, revision, hasMeta, meta, {member, record, ...},
// fenced, hasHandover, handover, handoverAgeMicros, hasEvents, events}.
var Activate = redis.NewScript(`
local f = redis.call('HGET', KEYS[1], 'format')
if f and f ~= '1' then return {'FORMAT', f} end
if redis.call('HGET', KEYS[1], 'live') ~= '1' then
  redis.call('DEL', KEYS[2])
  redis.call('HDEL', KEYS[1], 'meta', 'fenced', 'owner', 'handover', 'handoverEpoch', 'handoverSec', 'handoverUsec', 'events')
end
local prev = redis.call('HGET', KEYS[1], 'owner')
local fenced = redis.call('HGET', KEYS[1], 'fenced') or ''
if prev and prev ~= '' and prev ~= ARGV[1] and not string.find('\n' .. fenced .. '\n', '\n' .. prev .. '\n', 1, true) then
  if fenced == '' then fenced = prev else fenced = fenced .. '\n' .. prev end
end
if fenced ~= '' then redis.call('HSET', KEYS[1], 'fenced', fenced) end
local e = redis.call('HINCRBY', KEYS[1], 'activation', 1)
redis.call('HSET', KEYS[1], 'format', '1', 'live', '1', 'owner', ARGV[1], 'prefix', ARGV[2], 'group', ARGV[3])
local rev = redis.call('HGET', KEYS[1], 'revision')
if not rev then
  rev = '0'
  redis.call('HSET', KEYS[1], 'revision', '0')
end
local meta = redis.call('HGET', KEYS[1], 'meta')
local hasMeta = '1'
if not meta then
  hasMeta = '0'
  meta = ''
end
local ho = redis.call('HMGET', KEYS[1], 'handover', 'handoverEpoch', 'handoverSec', 'handoverUsec')
local hasHandover, handover, age = '0', '', 0
if ho[1] then
  if tonumber(ho[2]) == e - 1 and ho[3] and ho[4] then
    local t = redis.call('TIME')
    hasHandover, handover = '1', ho[1]
    age = (tonumber(t[1]) - tonumber(ho[3])) * 1000000 + (tonumber(t[2]) - tonumber(ho[4]))
    if age < 0 then age = 0 end
  end
  redis.call('HDEL', KEYS[1], 'handover', 'handoverEpoch', 'handoverSec', 'handoverUsec')
end
local events = redis.call('HGET', KEYS[1], 'events')
local hasEvents = '1'
if not events then
  hasEvents = '0'
  events = ''
end
return {'OK', e, rev, hasMeta, meta, redis.call('HGETALL', KEYS[2]), fenced, hasHandover, handover, age, hasEvents, events}
`)

// groupGuard is the shared check of Save and Delete: ARGV[1] is
// the caller's activation epoch. Fencing is checked before existence so a
// stale activation always learns it is fenced.
const groupGuard = `
local h = redis.call('HMGET', KEYS[1], 'format', 'activation', 'live', 'revision')
if not h[2] then return {'BEHIND', 'never activated'} end
if h[1] ~= '1' then return {'FORMAT', tostring(h[1])} end
if tonumber(h[2]) < tonumber(ARGV[1]) then return {'BEHIND', 'activation epoch is ' .. h[2]} end
if h[2] ~= ARGV[1] then return {'FENCED', h[2]} end
if h[3] ~= '1' then return {'NOTFOUND', 'deleted'} end
`

// Save: KEYS meta, members; ARGV epoch, expectedRevision, hasMeta,
// meta, hasEvents, events, nPut, put pairs (id, record)..., delete ids...
// Returns {"OK", newRevision}.
var Save = redis.NewScript(groupGuard + `
if h[4] ~= ARGV[2] then return {'CONFLICT', h[4]} end
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'meta', ARGV[4]) end
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'events', ARGV[6]) end
local n = tonumber(ARGV[7])
local i = 8
for _ = 1, n do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for j = i, #ARGV do
  redis.call('HDEL', KEYS[2], ARGV[j])
end
return {'OK', redis.call('HINCRBY', KEYS[1], 'revision', 1)}
`)

// Delete: KEYS meta, members; ARGV epoch. Keeps activation and
// revision counters.
var Delete = redis.NewScript(groupGuard + `
redis.call('DEL', KEYS[2])
redis.call('HDEL', KEYS[1], 'meta', 'owner', 'fenced', 'handover', 'handoverEpoch', 'handoverSec', 'handoverUsec', 'events')
redis.call('HSET', KEYS[1], 'live', '0')
return {'OK'}
`)

// CreateStream: KEYS stream; ARGV field/value pairs (incl. format and
// revision).
var CreateStream = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return {'EXISTS'} end
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return {'OK'}
`)

// UpdateStream: KEYS stream; ARGV expectedRevision, metadataVersion,
// hasExtra, field/value pairs... Returns {"OK", revision, createdAt, createdBy}.
var UpdateStream = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'format', 'revision', 'metadataVersion', 'createdAt', 'createdBy')
if not h[2] then return {'NOTFOUND'} end
if h[1] ~= '1' then return {'FORMAT', tostring(h[1])} end
if h[2] ~= ARGV[1] then return {'CONFLICT', h[2]} end
if tonumber(ARGV[2]) < tonumber(h[3]) then return {'REGRESS', h[3]} end
if ARGV[3] ~= '1' then redis.call('HDEL', KEYS[1], 'extra') end
for i = 4, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return {'OK', redis.call('HINCRBY', KEYS[1], 'revision', 1), h[4], h[5] or ''}
`)

// ClearTakeover: KEYS meta, members; ARGV epoch.
var ClearTakeover = redis.NewScript(groupGuard + `
redis.call('HDEL', KEYS[1], 'fenced')
return {'OK'}
`)

// Release: KEYS meta; ARGV epoch, handover ("" = none). Iff epoch is
// current: clears the owner and stores the hand-over with the epoch and the
// server's clock (TIME: seconds and microseconds, kept apart because a Lua
// number would round their combination).
var Release = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'activation') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'owner', '')
  if ARGV[2] ~= '' then
    local t = redis.call('TIME')
    redis.call('HSET', KEYS[1], 'handover', ARGV[2], 'handoverEpoch', ARGV[1], 'handoverSec', t[1], 'handoverUsec', t[2])
  else
    redis.call('HDEL', KEYS[1], 'handover', 'handoverEpoch', 'handoverSec', 'handoverUsec')
  end
end
return {'OK'}
`)

// RenewNode: KEYS instance, node, registry; ARGV ttlMs,
// newInstanceId, newInstanceCreatedMs, owner, registration. Creates the
// instance marker if missing, renews the node record, and renews owner's
// entry in the node registry (a hash owner → "expiresMs|registeredMs|
// renewedMs|registration", times from the server's clock), deleting expired
// entries on the way. Returns {"OK", renews, takeovers, nodeCreated,
// instanceId, instanceCreatedMs, instanceCreated, registeredMs, nowMs,
// peerOwner1, peerEntry1, …} with every other live entry. O(entries).
var RenewNode = redis.NewScript(`
local ic = 0
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'id', ARGV[2], 'createdAt', ARGV[3])
  ic = 1
end
local inst = redis.call('HMGET', KEYS[1], 'id', 'createdAt')
local nc = 1 - redis.call('EXISTS', KEYS[2])
local r = redis.call('HINCRBY', KEYS[2], 'renews', 1)
local t = redis.call('HGET', KEYS[2], 'takeovers') or '0'
redis.call('PEXPIRE', KEYS[2], ARGV[1])
local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local ttl = tonumber(ARGV[1])
local f = function(x) return string.format('%.0f', x) end
local reg = now
local out = {'OK', r, t, nc, inst[1], inst[2], ic, '', f(now)}
local all = redis.call('HGETALL', KEYS[3])
for i = 1, #all, 2 do
  local e, a = string.match(all[i + 1], '^(%d+)|(%d+)|')
  if not e or tonumber(e) <= now then
    if all[i] ~= ARGV[4] then redis.call('HDEL', KEYS[3], all[i]) end
  elseif all[i] == ARGV[4] then
    reg = tonumber(a)
  else
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  end
end
out[8] = f(reg)
redis.call('HSET', KEYS[3], ARGV[4], f(now + ttl) .. '|' .. f(reg) .. '|' .. f(now) .. '|' .. ARGV[5])
if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
return out
`)

// Notify: KEYS node. Bumps takeovers iff the record exists.
var Notify = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {'OK', 0} end
redis.call('HINCRBY', KEYS[1], 'takeovers', 1)
return {'OK', 1}
`)

// UnmarkLive: KEYS live index; ARGV id, epoch. Removes the entry
// unless a newer activation marked it.
var UnmarkLive = redis.NewScript(`
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) <= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return {'OK'}
`)

// Fence: KEYS fence; ARGV owner, epoch, at, base (the token a missing
// fence starts from; 0: from 0). One ownership change of one
// shard: the token moves on (HINCRBY, so it never resets while the key
// lives) together with owner, epoch and time, atomically. Returns the token.
var Fence = redis.NewScript(`
if ARGV[4] ~= '0' and redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'token', ARGV[4])
end
local t = redis.call('HINCRBY', KEYS[1], 'token', 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', ARGV[2], 'at', ARGV[3])
return t
`)

// AcquireDriver: KEYS lease; ARGV owner, ttl ms. Takes a free lease,
// renews one the owner holds, refuses otherwise.
var AcquireDriver = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if v == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`)

var ReleaseDriver = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// Retire: KEYS stream, retired (same slot: the retired key's hash tag
// is the whole stream key); ARGV retention ms. Renames the stream away only
// if every consumer group on it is drained: pending 0, and lag 0 or its
// last-delivered-id at the stream's last-generated-id, which is exact:
// nothing after it was ever written. The ids decide when Redis reports the
// lag as null (entries deleted in between, or a group moved with SETID),
// not at all (Redis < 7), or above 0 for a group that read everything (a
// promoted replica of Redis 7.0, which does not replicate the group's
// entries-read counter: a scale-in after a failover would wait forever).
// Being one script, no XADD can land between the check and the rename.
var Retire = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('EXISTS', KEYS[2]) == 1 then return {'RETIRED'} end
  return {'MISSING'}
end
local function field(arr, name)
  for i = 1, #arr, 2 do if arr[i] == name then return arr[i + 1] end end
  return nil
end
local function before(a, b)
  local ams, aseq = string.match(a, '^(%d+)-(%d+)$')
  local bms, bseq = string.match(b, '^(%d+)-(%d+)$')
  ams, aseq, bms, bseq = tonumber(ams), tonumber(aseq), tonumber(bms), tonumber(bseq)
  if ams ~= bms then return ams < bms end
  return aseq < bseq
end
local last = field(redis.call('XINFO', 'STREAM', KEYS[1]), 'last-generated-id')
local blocked = {}
for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local pending = tonumber(field(g, 'pending'))
  local lag = field(g, 'lag')
  local drained
  if pending ~= 0 then
    drained = false
  elseif type(lag) == 'number' and lag == 0 then
    drained = true
  else
    drained = not before(field(g, 'last-delivered-id'), last)
  end
  if not drained then
    local l = -1
    if type(lag) == 'number' then l = lag end
    table.insert(blocked, field(g, 'name'))
    table.insert(blocked, pending)
    table.insert(blocked, l)
  end
end
if #blocked > 0 then return {'BLOCKED', blocked} end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return {'RETIRED'}
`)

// SeedFence: KEYS fence; ARGV token, at. Creates a fence with no owner
// at token where none exists.
var SeedFence = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'owner', '', 'epoch', 0, 'at', ARGV[2])
return 1
`)

// DeleteStream: KEYS stream; ARGV expectedRevision. Deletes the record
// iff its revision matches.
var DeleteStream = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'format', 'revision')
if not h[2] then return {'NOTFOUND'} end
if h[1] ~= '1' then return {'FORMAT', tostring(h[1])} end
if h[2] ~= ARGV[1] then return {'CONFLICT', h[2]} end
redis.call('DEL', KEYS[1])
return {'OK'}
`)
