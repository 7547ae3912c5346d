package router

import (
	"context"
	"errors"
	"fmt"

	"github.com/redisstream/coordinator/actors/group/groupmsg"
	"github.com/redisstream/coordinator/coordinator"
	"github.com/redisstream/coordinator/persistence"
)

// StoreErr turns persistence errors into the service's sentinels.
func StoreErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, persistence.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %v", coordinator.ErrUnavailable, err)
	case errors.Is(err, persistence.ErrFenced):
		return fmt.Errorf("%w: %v", coordinator.ErrGroupMoving, err)
	case errors.Is(err, persistence.ErrConflict):
		return fmt.Errorf("%w: %v", coordinator.ErrStateConflict, err)
	}
	return err
}

// GroupErr maps an error a group actor reported.
func GroupErr(key persistence.GroupKey, err error) error {
	if errors.Is(err, persistence.ErrNotFound) {
		return fmt.Errorf("group %s: %w", key, coordinator.ErrGroupNotFound)
	}
	if errors.Is(err, groupmsg.ErrStreamMissing) {
		return fmt.Errorf("stream %s: %w", key.StreamPrefix, coordinator.ErrStreamNotFound)
	}
	return StoreErr(err)
}
