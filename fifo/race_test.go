//go:build race

package fifo_test

// modelSeeds is smaller under -race: the model test is single-goroutine
// logic, and the race detector slows it tenfold without finding more.
const modelSeeds = 30
