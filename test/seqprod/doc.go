// Package seqprod publishes entries carrying sequence numbers 1, 2, … (field
// "seq") at a steady rate through the member SDK's producer, for the demo,
// the end-to-end tests and the chaos runs. A failed publish is retried with
// the same number, so 1..Produced() were all accepted by Redis (a few
// possibly twice: a publish whose reply was lost). test/recorder checks what
// members did with them.
//
// It may import the member SDK and the standard library.
package seqprod
