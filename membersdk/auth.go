package membersdk

import (
	"context"
	"net/http"

	"github.com/redisstream/coordinator/membersdk/internal/coordclient"
)

// LoginTokenFunc returns an Auth.TokenFunc that logs in with
// POST /coord/v1/auth/login on the first URL that answers, caches the bearer
// token and logs in again shortly before it expires. hc may be nil.
func LoginTokenFunc(urls []string, username, password string, hc *http.Client) func(ctx context.Context) (string, error) {
	if hc == nil {
		hc = &http.Client{Timeout: DefaultRequestTimeout}
	}
	return coordclient.Login(urls, username, password, hc)
}
