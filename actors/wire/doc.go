// Package wire holds the protobuf messages that cross coordinator nodes:
// requests forwarded to a group grain on another node and their replies,
// and the per-node info that /debug/actors collects from every node.
//
// protoactor-go's remote only carries protobuf messages (a Go struct sent to
// another node is dropped and the caller times out), and Go error values do
// not survive serialization, so failures travel as a Code. The generated
// wire.pb.go is committed; `make proto` regenerates it.
package wire
