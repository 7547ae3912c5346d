package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// tokenGenerations hands the store's token generations to the API, with
// the store's unavailability mapped to the API's (503 STORE_UNAVAILABLE).
type tokenGenerations struct{ store persistence.TokenGenerations }

func (t tokenGenerations) TokenGenerations(ctx context.Context) (map[string]int64, error) {
	g, err := t.store.TokenGenerations(ctx)
	return g, mapStoreErr(err)
}

func (t tokenGenerations) RevokeTokens(ctx context.Context, user string) (int64, error) {
	g, err := t.store.RevokeTokens(ctx, user)
	return g, mapStoreErr(err)
}

func mapStoreErr(err error) error {
	if err != nil && errors.Is(err, persistence.ErrUnavailable) {
		return fmt.Errorf("%w: %w", coordinator.ErrUnavailable, err)
	}
	return err
}
