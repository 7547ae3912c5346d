package redisstore

import "github.com/redis/go-redis/v9"

// Every script answers {status, ...}. Status "OK" means applied; anything
// else means nothing was written.

// activateScript: KEYS meta, members; ARGV owner, prefix, group.
// Bumps the activation epoch, (re)creates a deleted group empty, returns
// {"OK", epoch, revision, hasMeta, meta, {member, record, ...}}.
var activateScript = redis.NewScript(`
local f = redis.call('HGET', KEYS[1], 'format')
if f and f ~= '1' then return {'FORMAT', f} end
if redis.call('HGET', KEYS[1], 'live') ~= '1' then
  redis.call('DEL', KEYS[2])
  redis.call('HDEL', KEYS[1], 'meta')
end
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
return {'OK', e, rev, hasMeta, meta, redis.call('HGETALL', KEYS[2])}
`)

// groupGuard is the shared check of saveScript and deleteScript: ARGV[1] is
// the caller's activation epoch. Fencing is checked before existence so a
// stale activation always learns it is fenced.
const groupGuard = `
local h = redis.call('HMGET', KEYS[1], 'format', 'activation', 'live', 'revision')
if not h[2] then return {'NOTFOUND', 'never activated'} end
if h[1] ~= '1' then return {'FORMAT', tostring(h[1])} end
if h[2] ~= ARGV[1] then return {'FENCED', h[2]} end
if h[3] ~= '1' then return {'NOTFOUND', 'deleted'} end
`

// saveScript: KEYS meta, members; ARGV epoch, expectedRevision, hasMeta,
// meta, nPut, put pairs (id, record)..., delete ids...
// Returns {"OK", newRevision}.
var saveScript = redis.NewScript(groupGuard + `
if h[4] ~= ARGV[2] then return {'CONFLICT', h[4]} end
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'meta', ARGV[4]) end
local n = tonumber(ARGV[5])
local i = 6
for _ = 1, n do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  i = i + 2
end
for j = i, #ARGV do
  redis.call('HDEL', KEYS[2], ARGV[j])
end
return {'OK', redis.call('HINCRBY', KEYS[1], 'revision', 1)}
`)

// deleteScript: KEYS meta, members; ARGV epoch. Keeps activation and
// revision counters.
var deleteScript = redis.NewScript(groupGuard + `
redis.call('DEL', KEYS[2])
redis.call('HDEL', KEYS[1], 'meta', 'owner')
redis.call('HSET', KEYS[1], 'live', '0')
return {'OK'}
`)

// createStreamScript: KEYS stream; ARGV field/value pairs (incl. format and
// revision).
var createStreamScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return {'EXISTS'} end
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
return {'OK'}
`)

// updateStreamScript: KEYS stream; ARGV expectedRevision, metadataVersion,
// hasExtra, field/value pairs... Returns {"OK", revision, createdAt, createdBy}.
var updateStreamScript = redis.NewScript(`
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
