// Package lua holds every Lua script the Redis store (persistence/redisstore) runs, one exported
// redis.Script per atomic operation, each documented with its KEYS, ARGV and answer. Scripts
// answer {status, ...}: "OK" means applied, anything else means nothing was written. It imports
// go-redis only; the key layout and the meaning of the answers stay in redisstore.
package lua
