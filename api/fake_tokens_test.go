package api

import (
	"context"
	"maps"
)

// The fake keeps token generations (tokengen.go) like the store does; err
// fails them like every other call.

func (f *fakeService) TokenGenerations(context.Context) (map[string]int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return maps.Clone(f.gens), nil
}

func (f *fakeService) RevokeTokens(_ context.Context, user string) (int64, error) {
	f.record("RevokeTokens "+user, nil)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, f.err
	}
	if f.gens == nil {
		f.gens = map[string]int64{}
	}
	f.gens[user]++
	return f.gens[user], nil
}
