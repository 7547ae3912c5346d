package main

import (
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// Users are configured in the coordinator's auth.users; streamctl only
// revokes their tokens (POST /coord/v1/auth/users/{u}/revoke-tokens).

func (a *app) usersCmd() *cobra.Command {
	g := group("users", "Manage API users' tokens", "user")
	g.AddCommand(a.usersRevokeTokensCmd())
	return g
}

func (a *app) usersRevokeTokensCmd() *cobra.Command {
	var reason string
	c := cmd("revoke-tokens USER", "Revoke every bearer token of USER issued so far (POST /coord/v1/auth/users/{u}/revoke-tokens; ADMIN)", exactly("USER"),
		func(c *cobra.Command, args []string) error {
			var resp protocol.RevokeTokensResponse
			raw, err := a.c.send(c.Context(), http.MethodPost, apiPath("/coord/v1/auth/users", args[0], "revoke-tokens"),
				protocol.RevokeTokensRequest{RequestedBy: a.flags.requestedBy, Reason: reason}, &resp)
			if err != nil {
				return err
			}
			if a.jsonOut() {
				return a.printJSON(raw)
			}
			fmt.Fprintf(a.stdout, "Tokens of %s revoked (token generation %d): refused now by this node, by the others within %ds. Its password is unchanged: it logs in again for a new token.\n",
				resp.Username, resp.TokenGeneration, resp.OtherNodesWithinSeconds)
			if !resp.Configured {
				fmt.Fprintf(a.stderr, "streamctl: note: the node that answered has no user %q in auth.users (revoked anyway, for nodes that have it)\n", resp.Username)
			}
			return nil
		})
	c.Long = `Revoke every bearer token of USER issued so far: a lost laptop, a leaked
CI token, a person leaving. The node that answers refuses them at once, the
other nodes within a few seconds. Basic credentials (the password) keep
working: change the password in auth.users as well when it leaked.`
	c.Example = "  streamctl users revoke-tokens ci-deployer --reason 'token leaked in a build log'"
	c.Flags().StringVar(&reason, "reason", "", "reason recorded with the change")
	return c
}
