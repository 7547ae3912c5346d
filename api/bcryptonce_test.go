package api

import (
	"fmt"
	"sync"

	"github.com/redisstream/coordinator/api/auth"
)

// The tests build hundreds of servers from a few configurations, each with
// an authenticator that bcrypt-hashes every plain password and its dummy at
// start-up: slow under the race detector. Each password is hashed once per
// test process instead; the checks of a request (auth.BcryptCompare) are
// not cached.
func init() {
	var hashes sync.Map // "cost/password" → hash
	generate := auth.BcryptGenerate
	auth.BcryptGenerate = func(password []byte, cost int) ([]byte, error) {
		key := fmt.Sprintf("%d/%s", cost, password)
		if h, ok := hashes.Load(key); ok {
			return h.([]byte), nil
		}
		h, err := generate(password, cost)
		if err != nil {
			return nil, err
		}
		hashes.Store(key, h)
		return h, nil
	}
}
