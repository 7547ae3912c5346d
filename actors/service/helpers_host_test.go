package service_test

import "github.com/redisstream/coordinator/persistence"

// These tests run the service inside a whole node (actors/host composes
// it with its router, node and resharding driver), on memory or a real
// redis-server.

var workers = persistence.GroupKey{StreamPrefix: "orders", ConsumerGroup: "workers"}
