// Package benchresult holds the figures the actors/host benchmarks write as
// JSON lines to the file RSC_BENCH_RESULT names, and test/sysbench reads
// back into the whole-system table: one definition for both sides.
//
// It may import the standard library only.
package benchresult
