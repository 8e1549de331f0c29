//go:build !race

package fifo_test

// modelSeeds is how many seeded random runs TestModel makes per queue.
const modelSeeds = 150
