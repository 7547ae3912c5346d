package coordclient

import "net/url"

// GroupPath is "/coord/v1/streams/{p}/groups/{g}".
func GroupPath(streamPrefix, group string) string {
	return "/coord/v1/streams/" + url.PathEscape(streamPrefix) + "/groups/" + url.PathEscape(group)
}

// HeartbeatPath is the heartbeat path of one member of a group.
func HeartbeatPath(streamPrefix, group, memberID string) string {
	return GroupPath(streamPrefix, group) + "/members/" + url.PathEscape(memberID) + "/heartbeat"
}
